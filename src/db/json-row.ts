/**
 * Maps a row that PostgreSQL rendered as JSON (`row_to_json(t)`, `to_jsonb(t)`: snake_case keys,
 * timestamps as ISO text) to the Drizzle row shape of its table (`$inferSelect`: camelCase keys, `Date`s,
 * numbers), with each column's own driver mapping. For hot statements written in SQL that return rows of
 * several tables in one round trip.
 */
import { getTableColumns, type Column } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgTable } from 'drizzle-orm/pg-core';

type Mapping = [key: string, jsonKey: string, column: Column][];
const mappings = new WeakMap<PgTable, Mapping>();

function mappingOf(table: PgTable): Mapping {
  let m = mappings.get(table);
  if (!m) {
    m = Object.entries(getTableColumns(table)).map(([key, column]) => [key, column.keyAsName ? toSnakeCase(key) : column.name, column]);
    mappings.set(table, m);
  }
  return m;
}

/** `json` (one row of `table` as PostgreSQL renders it in JSON) as `table.$inferSelect`; missing keys become null. */
export function rowFromJson<T extends PgTable>(table: T, json: Record<string, unknown>): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [key, jsonKey, column] of mappingOf(table)) {
    const value = json[jsonKey];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row;
}
