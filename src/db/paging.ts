/** What a list statement needs of a page request: its window and where counting stops. */

/** A page of a list: `limit` rows after skipping `offset`. */
export interface PageRequest {
  limit: number;
  offset: number;
}

/**
 * Lists over tables that grow without bound (leads, cartera) stop counting at
 * `max(COUNT_CAP, offset + limit + 1)` rows: an exact count of 100k rows costs more than the page itself.
 */
export const COUNT_CAP = 1000;

/** The row count at which a capped list stops counting for this page. */
export function countCapFor(page: PageRequest): number {
  return Math.max(COUNT_CAP, page.offset + page.limit + 1);
}
