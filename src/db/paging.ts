/** What a list statement needs of a page request: its window and where counting stops. */
import { LRUCache } from 'lru-cache';

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

/**
 * Who reads a list page: the entity its statement is scoped by, and the user whose principal it reads along
 * (a verified token's, see `PendingPrincipal`).
 */
export interface PageReader {
  userId: number;
  entityId: number;
}

/** A page read as one row (`pageOfItems`): its row count, its items' JSON texts joined, and the capped count when counted. */
export interface PageItems {
  n: number;
  /** The items' texts joined by commas, in the page's order; null for an empty page. */
  items: string | null;
  /** The count capped at the page's cap, on counted reads only. */
  total?: number | null;
  /** The caller's principal text, on reads that read it along (`PendingPrincipal`): null when the user does not exist. */
  principal?: string | null;
}

/** A page of a capped list: its items joined and the count of the list, capped (`capped`: counting stopped at the cap). */
export interface CappedPage {
  /** The items' texts joined by commas ('' for none). */
  items: string;
  total: number;
  capped: boolean;
}

/** How one capped list is read: its page with or without the count, and the count alone. */
export interface CappedListReader {
  entityId: number;
  /**
   * The list's filter values, never the page or the sort (they do not change the count): with the entity,
   * what makes two reads the same list, with the same total.
   */
  filter: object;
  page: PageRequest;
  /** The page; with `counted`, with the capped count as `total`. */
  read(counted: boolean): Promise<PageItems>;
  /** The capped count alone. */
  count(): Promise<number>;
}

/**
 * Capped lists known to reach their cap (docs/decisions.md, "Lists over their cap are not counted again";
 * issue 29). Counting to the cap reads up to `COUNT_CAP` index entries, which cost PostgreSQL more than the
 * page itself (about 100 of 220 µs of CPU for the leads page at 100,000 leads), and a list that reached
 * its cap answers the same total on its next pages and views. So a count that reached the cap is
 * remembered per entity and filter (`CappedListReader`) for `ttlMs`, and while it is the pages skip the
 * count and answer the cap. New rows never make that wrong. A page shorter than its limit means that rows
 * left the list since: it is counted again and the memory of it dropped. Held per service, in memory,
 * bounded by `max` lists.
 */
export function createCappedCounts(options: { ttlMs?: number; max?: number } = {}) {
  /** List key -> the largest cap its count reached. */
  const reached = new LRUCache<string, number>({ max: options.max ?? 10_000, ttl: options.ttlMs ?? 60_000 });

  return {
    /** Reads a page of `list` with its capped total, counting only when the list is not known to reach the cap. */
    async page(list: CappedListReader): Promise<CappedPage> {
      const key = JSON.stringify([list.entityId, list.filter]);
      const cap = countCapFor(list.page);
      let page: PageItems;
      let total: number;
      if ((reached.get(key) ?? 0) >= cap) {
        page = await list.read(false);
        if (page.n === list.page.limit) return { items: page.items ?? '', total: cap, capped: true };
        reached.delete(key);
        total = await list.count();
      } else {
        page = await list.read(true);
        total = page.total ?? 0;
      }
      if (total >= cap) reached.set(key, Math.max(cap, reached.get(key) ?? 0));
      return { items: page.items ?? '', total, capped: total >= cap };
    },
  };
}
