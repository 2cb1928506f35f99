/**
 * Hot list statements (GET /leads, /cartera/*, the cartera export; declared with `shapedStatement` in their
 * modules' `*.sql.ts`): each is built from a *shape* (which filters, sort and page size are present) with
 * `sql.placeholder(name)` where values go, rendered to `$n` text once per shape, and run with the values
 * filled in, so a request pays neither the query builder nor the rendering. Most run as named prepared statements (`Database.preparedQuery`): PostgreSQL parses
 * them once per connection and, with the page size as a literal (see `pageWindow`), caches a generic
 * plan. See docs/decisions.md ("Hot lists").
 */
import { fillPlaceholders, sql, type SQL } from 'drizzle-orm';
import type { Database } from './client.js';
import { renderShape, type ShapedStatement } from './statement.js';
import { COUNT_CAP, countCapFor, type PageRequest } from './paging.js';

/** The part of `Database` the list repositories need. */
export type PreparedRunner = Pick<Database, 'preparedQuery' | 'executeSql'>;

export interface RunOptions {
  /**
   * Plan on every call with the values known (an unnamed statement) instead of caching a generic plan:
   * for filters whose best plan depends on the value, such as a seller who holds 60% of the leads or
   * twenty of them (a cached plan suited to one is tens of times slower for the other).
   */
  planEachCall?: boolean;
}

/**
 * Runs `shape` of `stmt` (declared in a module's `*.sql.ts`) with `values` for its placeholders and
 * returns the rows as the driver parses them. The text is rendered once per statement and shape.
 */
export async function runShaped<T, S>(
  database: PreparedRunner,
  stmt: ShapedStatement<S>,
  shape: S,
  values: Record<string, unknown>,
  options: RunOptions = {},
): Promise<T[]> {
  const statement = renderShape(stmt, shape);
  const params = fillPlaceholders(statement.params, values);
  if (options.planEachCall) return (await database.executeSql(statement.text, params)).rows as T[];
  return database.preparedQuery<T>(statement.name, statement.text, params);
}

/**
 * A bounded integer written into the statement text instead of passed as a parameter. PostgreSQL costs a
 * parameterized `limit $n` in a generic plan as if it returned 10% of the rows, so the cached generic
 * plan of a list always looked costlier than a custom plan and every call was planned again (about as
 * costly as running the page). With the page size and count cap as literals the generic plan is cached
 * after five calls. Only for values from a small set (page sizes, the count cap), or texts would multiply.
 */
function literalInt(n: number): SQL {
  if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${n}`);
  return sql.raw(String(n));
}

/** What of a page request the statement text depends on. */
export interface PageShape {
  limit: number;
  /** Past the first page: `offset` is a placeholder (the first page has none). */
  offset: boolean;
  /** The count cap is above `COUNT_CAP` (deep pages): `cap` is a placeholder. */
  bigCap: boolean;
}

/**
 * The page shapes a list statement is checked in (test/db/sql-statements.test.ts): the page size is a
 * literal, so one size stands for all.
 */
export const PAGE_SHAPES: readonly PageShape[] = [false, true].flatMap((offset) => [false, true].map((bigCap) => ({ limit: 50, offset, bigCap })));

/** The shape of `page` and the values its placeholders take (`offset`, `cap`). */
export function pageShapeOf(page: PageRequest): { shape: PageShape; values: { offset: number; cap: number } } {
  const cap = countCapFor(page);
  return { shape: { limit: page.limit, offset: page.offset > 0, bigCap: cap !== COUNT_CAP }, values: { offset: page.offset, cap } };
}

/**
 * `limit <literal>`, plus `offset` past the first page: the first page runs on a cached generic plan;
 * a deeper page is planned on each call with its offset known.
 */
export function pageWindow(limit: number, withOffset: boolean): SQL {
  return withOffset ? sql`limit ${literalInt(limit)} offset ${sql.placeholder('offset')}` : sql`limit ${literalInt(limit)}`;
}

/**
 * A page of stored JSON items as one row (`PageItems`): `n`, the rows of the page; `items`, their `item`
 * texts joined by commas in the page's order (null for none); with `total`, that capped count, computed
 * once. `rows` selects `item` and ends with its `order by` and `limit`: a subquery with a limit is never
 * merged into the aggregate's level, so `string_agg` reads its rows in the order it returns them (the list
 * tests check every sort). One row of one text rather than a row per item: the driver's cost per row was
 * most of a page's Node time past the socket write (docs/decisions.md, "List pages joined by the database").
 * With `principal`, the caller's principal text read along as `principal` (see `PendingPrincipal`).
 */
export function pageOfItems(rows: SQL, total?: SQL, principal?: SQL): SQL {
  return sql`select count(*)::int as n, string_agg(p.item, ',') as items${total ? sql`, ${total} as total` : sql``}${principal ? sql`, ${principal} as principal` : sql``} from (${rows}) p`;
}

/** The `limit` of a capped count: the usual `COUNT_CAP` as a literal (see `literalInt`), a larger one (deep pages) as the `cap` placeholder. */
export function countCapLimit(bigCap: boolean): SQL {
  return bigCap ? sql`limit ${sql.placeholder('cap')}` : sql`limit ${literalInt(COUNT_CAP)}`;
}

/**
 * A timestamptz column as the exact text `Date.prototype.toISOString()` would give (UTC, milliseconds
 * truncated, `Z`): rendered by the database, so list rows skip the driver's date parsing.
 */
export function isoTimestamp(column: SQL): SQL {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
