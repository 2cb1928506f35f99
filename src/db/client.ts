/**
 * The one database handle of the service: PGlite (embedded, in `DATA_DIR/pg` or in memory) when
 * `DATABASE_URL` is unset, PostgreSQL through node-postgres otherwise. Everything above this file sees
 * only `Database`, so the driver choice stays here.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import pg from 'pg';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { traceDatabaseClient } from './tracing.js';
/** A Drizzle database or transaction; repositories take this as their first argument. */
export type Db = PgDatabase<PgQueryResultHKT>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The PostgreSQL URL (postgres only), for tools that need their own connection (migrations). */
  url?: string;
  /** Raw SQL for libraries that bring their own SQL (pg-boss): `$1`-style parameters, returns rows. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /**
   * A hot-path query as a named prepared statement (PostgreSQL parses and plans it once per
   * connection); on PGlite a plain parameterized query. `name` must be unique per distinct `text`.
   */
  preparedQuery<T>(name: string, text: string, values: unknown[]): Promise<T[]>;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  /** PGlite only: the data directory as an uncompressed tarball, for `DatabaseOptions.loadDataDir`. */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; unset selects PGlite. */
  url?: string | undefined;
  /** PGlite data directory parent (`<dataDir>/pg`); `:memory:` keeps it in memory. */
  dataDir?: string;
  poolSize?: number;
  /** Makes every statement an OpenTelemetry span (platform/telemetry/tracing.ts). */
  traced?: boolean;
  /**
   * PGlite only: a data directory tarball (`PGlite.dumpDataDir`) to start from instead of an empty
   * cluster; skips initdb (the tests start every file from one migrated dump).
   */
  loadDataDir?: Blob;
}

/** Opens the database selected by `options`; the caller owns `close()`. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url !== undefined) return openPostgres(options.url, options.poolSize ?? 10, options.traced ?? false);
  return openPglite(options.dataDir ?? ':memory:', options.traced ?? false, options.loadDataDir);
}

async function openPglite(dataDir: string, traced: boolean, loadDataDir: Blob | undefined): Promise<Database> {
  let client: PGlite;
  // pg_trgm: the trigram indexes of the inbox search and of records search (migrations 0011, 0032); unaccent: search (0032).
  const options = { extensions: { pg_trgm, unaccent }, ...(loadDataDir ? { loadDataDir } : {}) };
  if (dataDir === ':memory:') {
    client = new PGlite(options);
  } else {
    mkdirSync(dataDir, { recursive: true });
    client = new PGlite(join(dataDir, 'pg'), options);
  }
  await client.waitReady;
  if (traced) {
    traceDatabaseClient(client, ['query', 'exec']);
    // Statements of a transaction run on the transaction object PGlite hands to the callback.
    const transaction = client.transaction.bind(client);
    client.transaction = ((callback: (tx: object) => Promise<unknown>) =>
      transaction((tx) => {
        traceDatabaseClient(tx, ['query', 'exec']);
        return callback(tx);
      })) as typeof client.transaction;
  }
  const db = drizzlePglite(client, { casing: 'snake_case' }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    // PGlite runs parameterless multi-statement SQL only through exec(); parameterized through query().
    async executeSql(text, values) {
      if (values === undefined || values.length === 0) {
        const results = await client.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      }
      const result = await client.query<Record<string, unknown>>(text, values);
      return { rows: result.rows };
    },
    async preparedQuery<T>(_name: string, text: string, values: unknown[]) {
      return (await client.query<T>(text, values)).rows;
    },
    async ping() {
      await client.query('select 1');
    },
    dumpDataDir: () => client.dumpDataDir('none'),
    async close() {
      if (!client.closed) await client.close();
    },
  };
}

async function openPostgres(url: string, poolSize: number, traced: boolean): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // Every statement, of the pool's own queries and of transactions alike, runs on a connection's query().
  if (traced) pool.on('connect', (connection) => traceDatabaseClient(connection));
  // An idle connection can be dropped by the server (restart, failover, administrator): the pool replaces
  // it on the next checkout, so this must not take the process down.
  pool.on('error', (err) => process.emitWarning(`PostgreSQL connection lost while idle: ${err.message}`));
  const db = drizzlePg(pool, { casing: 'snake_case' }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: 'postgres',
    url,
    async executeSql(text, values) {
      const result = await pool.query<Record<string, unknown>>(text, values);
      return { rows: result.rows };
    },
    async preparedQuery<T>(name: string, text: string, values: unknown[]) {
      return (await pool.query<T & pg.QueryResultRow>({ name, text, values })).rows;
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** Runs a raw Drizzle `sql` query and returns its rows, typed by the caller. */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (result as { rows: T[] }).rows;
}

/**
 * Runs `text` (`$1`-style parameters) on the connection behind `db`, a Drizzle database or transaction
 * (inside a transaction, on that transaction's connection), and returns its rows as the driver parses
 * them. On PostgreSQL a named prepared statement, parsed and planned once per connection; on PGlite a
 * parameterized query. For hot statements where building the query with Drizzle would cost more than
 * running it. `name` must be unique per distinct `text`.
 */
export async function preparedIn<T>(db: Db, name: string, text: string, values: unknown[]): Promise<T[]> {
  // Drizzle keeps the driver client (pool, pool client or PGlite transaction) on the session.
  const client = (db as unknown as { session: { client: unknown } }).session.client;
  if (client instanceof pg.Pool || client instanceof pg.Client) return (await client.query<T & pg.QueryResultRow>({ name, text, values })).rows;
  return (await (client as { query<R>(text: string, params: unknown[]): Promise<{ rows: R[] }> }).query<T>(text, values)).rows;
}

const MAX_LIBRARY_STATEMENTS = 500;
const libraryStatements = new Map<string, string>();

/**
 * The prepared-statement name of `text`, a parameterized statement of a library that brings its own SQL
 * (pg-boss): the same text always gets the same name, so PostgreSQL parses it once per connection and can
 * cache its plan (planning pg-boss's statements over its partitioned job table cost more than running
 * them). Undefined, to run it unnamed, without parameters (such text may hold several commands) and once
 * 500 distinct texts are named, so that texts with values written into them cannot grow every
 * connection's statement cache without bound.
 */
export function libraryStatementName(text: string, values: readonly unknown[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  let name = libraryStatements.get(text);
  if (name === undefined && libraryStatements.size < MAX_LIBRARY_STATEMENTS) {
    name = `lib_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    libraryStatements.set(text, name);
  }
  return name;
}

/**
 * An `executeSql` bound to the connection behind `db` (inside a transaction, that transaction's
 * connection), for libraries that take one per call (pg-boss `send(..., { db })`): what it writes
 * commits or rolls back with the caller's transaction. `$1`-style parameters; returns rows. On
 * PostgreSQL parameterized statements run prepared (`libraryStatementName`).
 */
export function sqlExecutorIn(db: Db): { executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> } {
  const client = (db as unknown as { session: { client: unknown } }).session.client;
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    return {
      async executeSql(text, values) {
        const name = libraryStatementName(text, values);
        const result = await client.query<Record<string, unknown>>(name === undefined ? { text, values } : { name, text, values });
        return { rows: result.rows };
      },
    };
  }
  // A PGlite database or transaction object: parameterless multi-statement SQL only runs through exec().
  const lite = client as {
    query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
    exec(text: string): Promise<{ rows: Record<string, unknown>[] }[]>;
  };
  return {
    async executeSql(text, values) {
      if (values === undefined || values.length === 0) return { rows: (await lite.exec(text)).at(-1)?.rows ?? [] };
      return { rows: (await lite.query<Record<string, unknown>>(text, values)).rows };
    },
  };
}
