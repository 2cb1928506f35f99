/**
 * Counts SQL statements at the driver level (PGlite `query`/`exec` and node-postgres `Client.query`),
 * for assertions like "this request issues one query", and keeps what the database answered them.
 * Patches the prototypes while recording.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface QueryRecorder {
  statements: string[];
  /** Each statement with the rows the database answered, once answered (statements that failed are left out). */
  answers: { text: string; rows: Record<string, unknown>[] }[];
  stop(): void;
}

const textOf = (arg: unknown): string =>
  typeof arg === 'string' ? arg : typeof (arg as { text?: unknown })?.text === 'string' ? (arg as { text: string }).text : String(arg);

/** Starts recording every statement sent by any PGlite or node-postgres client in this process. */
export function recordQueries(): QueryRecorder {
  const statements: string[] = [];
  const answers: QueryRecorder['answers'] = [];
  /** Records `text` and, once it resolves, its rows; the caller gets the driver's own result. */
  const recorded = (text: string, result: unknown) => {
    statements.push(text);
    if (result instanceof Promise)
      result.then(
        (r: { rows?: Record<string, unknown>[] }) => answers.push({ text, rows: r?.rows ?? [] }),
        () => undefined,
      );
    return result;
  };
  const pgliteProto = PGlite.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const pgProto = pg.Client.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = { query: pgliteProto.query!, exec: pgliteProto.exec!, pgQuery: pgProto.query! };
  pgliteProto.query = function (this: unknown, ...args: unknown[]) {
    return recorded(textOf(args[0]), originals.query.apply(this, args));
  };
  pgliteProto.exec = function (this: unknown, ...args: unknown[]) {
    statements.push(textOf(args[0]));
    return originals.exec.apply(this, args);
  };
  pgProto.query = function (this: unknown, ...args: unknown[]) {
    const text = textOf(args[0]);
    const callback = args.at(-1);
    // The pool passes a callback (and then the driver returns no promise): its rows are recorded there.
    if (typeof callback === 'function') {
      args[args.length - 1] = (err: unknown, res: { rows?: Record<string, unknown>[] }) => {
        if (!err) answers.push({ text, rows: res?.rows ?? [] });
        return (callback as (...a: unknown[]) => unknown)(err, res);
      };
      statements.push(text);
      return originals.pgQuery.apply(this, args);
    }
    return recorded(text, originals.pgQuery.apply(this, args));
  };
  return {
    statements,
    answers,
    stop() {
      pgliteProto.query = originals.query;
      pgliteProto.exec = originals.exec;
      pgProto.query = originals.pgQuery;
    },
  };
}
