/**
 * Hot list queries as named prepared statements: a Drizzle `sql` fragment is rendered to `$n` text once
 * per request (cheap, no query builder) and run through `Database.preparedQuery`, so PostgreSQL parses and
 * plans each distinct statement once per connection. Statement names are derived from the text, so one
 * name never stands for two different texts.
 */
import type { SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { COUNT_CAP } from '../../platform/http/pagination.js';

/** The part of `Database` the list repositories need. */
export type PreparedRunner = Pick<Database, 'preparedQuery'>;

const dialect = new PgDialect();
// Text -> statement name. Bounded: texts differ only by which filters and sort are present (values are parameters).
const names = new Map<string, string>();

/** Runs `query` as a named prepared statement (`<prefix>_<n>`) and returns its rows as the driver parses them. */
export async function runPrepared<T>(database: PreparedRunner, prefix: string, query: SQL): Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  let name = names.get(text);
  if (name === undefined) {
    name = `${prefix}_${names.size + 1}`;
    names.set(text, name);
  }
  return database.preparedQuery<T>(name, text, params);
}

/**
 * A bounded integer written into the statement text instead of passed as a parameter. PostgreSQL costs a
 * parameterized `limit $n` in a generic plan as if it returned 10% of the rows, so the cached generic
 * plan of a list always looked costlier than a custom plan and every call was planned again (about as
 * costly as running the page). With the page size and count cap as literals the generic plan is cached
 * after five calls. Only for values from a small set (page sizes, the count cap), or texts would multiply.
 */
export function literalInt(n: number): SQL {
  if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${n}`);
  return sql.raw(String(n));
}

/**
 * `limit <literal>`, plus `offset $n` past the first page: the first page runs on a cached generic plan;
 * a deeper page is planned on each call with its offset known.
 */
export function pageWindow(limit: number, offset: number): SQL {
  return offset > 0 ? sql`limit ${literalInt(limit)} offset ${offset}` : sql`limit ${literalInt(limit)}`;
}

/** The cap of a capped count: the usual `COUNT_CAP` as a literal (see `literalInt`), a larger one (deep pages) as a parameter. */
export function countCapLimit(cap: number): SQL {
  return cap === COUNT_CAP ? sql`limit ${literalInt(cap)}` : sql`limit ${cap}`;
}

/**
 * A timestamptz column as the exact text `Date.prototype.toISOString()` would give (UTC, milliseconds
 * truncated, `Z`): rendered by the database, so list rows skip the driver's date parsing.
 */
export function isoTimestamp(column: SQL): SQL {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
