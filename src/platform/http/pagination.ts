/**
 * The one list shape of the service: `{ data, pagination: { limit, offset, total } }` with offset
 * pagination. `limit` defaults per list (10 for custom-field lists, SPEC "Limits") and is capped at
 * `MAX_PAGE_SIZE`; a larger value is a 400 `validation_failed`, never silently clamped.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { MAX_ID } from './ids.js';
import type { PageRequest } from '../../db/paging.js';

// The count cap and the page request live with the statements that use them (src/db sits below the platform).
export { COUNT_CAP, countCapFor, type PageRequest } from '../../db/paging.js';

/** Largest page any list serves (the shared client asks for 100 and 200). */
const MAX_PAGE_SIZE = 200;

/** Query parameters `limit` and `offset` with `defaultLimit`. */
export function pageQuery(defaultLimit = 50) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: defaultLimit, description: `Page size (max ${MAX_PAGE_SIZE})` }),
    offset: Type.Integer({ minimum: 0, maximum: MAX_ID, default: 0, description: 'Rows to skip' }),
  };
}

export const Pagination = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer({ description: 'Rows matching the filters across all pages (a lower bound when total_capped is true)' }),
  total_capped: Type.Optional(
    Type.Boolean({
      description:
        'Present on lists that cap their count (leads, cartera): true when counting stopped at the cap, so there are at least `total` rows. A list that reached its cap answers it without counting again for up to 60 s, unless a page comes back short',
    }),
  ),
});
export type Pagination = Static<typeof Pagination>;

/** A list response schema around `item`. */
export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), pagination: Pagination });
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/**
 * The page response of `rows` mapped by `map`; `capped` (lists that stop counting at a cap) adds
 * `total_capped`.
 */
export function toPage<R, T>(page: PageRequest, rows: readonly R[], total: number, map: (row: R) => T, capped?: boolean): Page<T> {
  return { data: rows.map(map), pagination: paginationOf(page, total, capped) };
}

function paginationOf(page: PageRequest, total: number, capped: boolean | undefined): Pagination {
  const pagination: Pagination = { limit: page.limit, offset: page.offset, total };
  if (capped !== undefined) pagination.total_capped = capped;
  return pagination;
}

/**
 * The same page as `toPage` serializes it, from items that are JSON texts already, joined by commas (a read
 * model that stores each item's JSON, such as the cartera's): the response body, to send as it is
 * (`sendJsonText`). The route keeps its response schema for the contract; the texts must match it.
 */
export function pageText(page: PageRequest, items: string, total: number, capped?: boolean): string {
  return `{"data":[${items}],"pagination":${JSON.stringify(paginationOf(page, total, capped))}}`;
}

/** Escapes `%`, `_` and `\` so a user's search text matches literally inside `ilike '%…%'`. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
