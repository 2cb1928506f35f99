/**
 * Counts SQL statements at the driver level (PGlite `query`/`exec` and node-postgres `Client.query`),
 * for assertions like "this request issues one query". Patches the prototypes while recording.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface QueryRecorder {
  statements: string[];
  stop(): void;
}

const textOf = (arg: unknown): string =>
  typeof arg === 'string' ? arg : typeof (arg as { text?: unknown })?.text === 'string' ? (arg as { text: string }).text : String(arg);

/** Starts recording every statement sent by any PGlite or node-postgres client in this process. */
export function recordQueries(): QueryRecorder {
  const statements: string[] = [];
  const pgliteProto = PGlite.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const pgProto = pg.Client.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = { query: pgliteProto.query!, exec: pgliteProto.exec!, pgQuery: pgProto.query! };
  pgliteProto.query = function (this: unknown, ...args: unknown[]) {
    statements.push(textOf(args[0]));
    return originals.query.apply(this, args);
  };
  pgliteProto.exec = function (this: unknown, ...args: unknown[]) {
    statements.push(textOf(args[0]));
    return originals.exec.apply(this, args);
  };
  pgProto.query = function (this: unknown, ...args: unknown[]) {
    statements.push(textOf(args[0]));
    return originals.pgQuery.apply(this, args);
  };
  return {
    statements,
    stop() {
      pgliteProto.query = originals.query;
      pgliteProto.exec = originals.exec;
      pgProto.query = originals.pgQuery;
    },
  };
}
