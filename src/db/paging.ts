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

/** A page read as one row (`pageOfItems`). */
export interface PageItems {
  /** The page's row count. */
  n: number;
  /** The page's row versions (`rowVersion`) joined by commas, in the page's order; null for an empty page. */
  versions: string | null;
  /** The items' texts joined by commas, in the page's order ('' for none); null when `versions` are the ones the read was given as known. */
  items: string | null;
  /** The count capped at the page's cap, on counted reads only. */
  total?: number | null;
}

/** A page of a capped list: its items joined and the count of the list, capped (`capped`: counting stopped at the cap). */
export interface CappedPage {
  /** The items' texts joined by commas ('' for none). */
  items: string;
  total: number;
  capped: boolean;
}

/** How one capped list of stored items is read: its page with or without the count, and the count alone. */
export interface ListPageReader {
  entityId: number;
  /**
   * The list's filter values, never the page or the sort (they do not change the count): with the entity,
   * what makes two reads the same list, with the same total.
   */
  filter: object;
  /** The page, with its sort where the list has one. */
  page: PageRequest & { sort?: string };
  /**
   * The page; with `counted`, with the capped count as `total`; given `known` versions, without its items
   * when its versions are those (`pageOfItems`).
   */
  read(counted: boolean, known: string | null): Promise<PageItems>;
  /** The capped count alone. */
  count(): Promise<number>;
}

/** A page kept with the row versions its items were read at. */
interface KeptPage {
  versions: string;
  items: string;
}

/**
 * How the pages of lists of stored items (leads, cartera) are read: two things are remembered per service,
 * in memory, for `ttlMs` (60 s).
 *
 * Capped lists known to reach their cap (docs/decisions.md, "Lists over their cap are not counted again";
 * issue 29). Counting to the cap reads up to `COUNT_CAP` index entries, which cost PostgreSQL more than the
 * page itself (about 100 of 220 µs of CPU for the leads page at 100,000 leads), and a list that reached
 * its cap answers the same total on its next pages and views. So a count that reached the cap is
 * remembered per entity and filter (`ListPageReader`), bounded by `max` lists, and while it is the pages
 * skip the count and answer the cap. New rows never make that wrong. A page shorter than its limit means
 * that rows left the list since: it is counted again and the memory of it dropped.
 *
 * The items of the pages last read (docs/decisions.md, "List pages checked against the database"), bounded
 * by `keptChars` (16 Mi characters). Every read still runs its statement in the database, which answers the
 * page's row versions and, when they are the versions of the kept page, not its items: the items are the
 * kept ones, since a row's stored item is fixed for a version. The versions decide, never the key, which
 * only finds the kept page: a page is as fresh as without the memory, and a 17 KB cartera page crosses from
 * the database as 1 KB of versions.
 */
export function createListPages(options: { ttlMs?: number; max?: number; keptChars?: number } = {}) {
  const ttl = options.ttlMs ?? 60_000;
  /** List key -> the largest cap its count reached. */
  const reached = new LRUCache<string, number>({ max: options.max ?? 10_000, ttl });
  /** Page key -> the page as last read. */
  const kept = new LRUCache<string, KeptPage>({
    maxSize: options.keptChars ?? 16 * 1024 * 1024,
    sizeCalculation: (p) => p.items.length + p.versions.length + 1,
    ttl,
  });

  /** Reads the page, its items from the kept page when the database answers the kept versions. */
  async function read(list: ListPageReader, counted: boolean, pageKey: string): Promise<PageItems & { items: string }> {
    const known = kept.get(pageKey);
    const page = await list.read(counted, known?.versions ?? null);
    // Null items: the database matched the versions given, those of `known`.
    if (page.items === null) return { ...page, items: known!.items };
    if (page.versions !== null) kept.set(pageKey, { versions: page.versions, items: page.items });
    return { ...page, items: page.items };
  }

  return {
    /** Reads a page of `list` with its capped total, counting only when the list is not known to reach the cap. */
    async page(list: ListPageReader): Promise<CappedPage> {
      const key = JSON.stringify([list.entityId, list.filter]);
      const pageKey = JSON.stringify([list.entityId, list.filter, list.page]);
      const cap = countCapFor(list.page);
      let page: PageItems & { items: string };
      let total: number;
      if ((reached.get(key) ?? 0) >= cap) {
        page = await read(list, false, pageKey);
        if (page.n === list.page.limit) return { items: page.items, total: cap, capped: true };
        reached.delete(key);
        total = await list.count();
      } else {
        page = await read(list, true, pageKey);
        total = page.total ?? 0;
      }
      if (total >= cap) reached.set(key, Math.max(cap, reached.get(key) ?? 0));
      return { items: page.items, total, capped: total >= cap };
    },
  };
}
