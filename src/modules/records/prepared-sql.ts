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
 * A timestamptz column as the exact text `Date.prototype.toISOString()` would give (UTC, milliseconds
 * truncated, `Z`): rendered by the database, so list rows skip the driver's date parsing.
 */
export function isoTimestamp(column: SQL): SQL {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
