/**
 * Two-level cache of ERP catalogs (SPEC "Limits"): memory with stale-while-revalidate in front of the
 * `external_catalog_caches` table.
 *
 * - memory fresh → `hit-memory`;
 * - memory stale → served at once, one background refresh per key → `stale-while-revalidate`;
 * - database entry within its TTL → copied to memory → `hit-database`;
 * - otherwise the loader runs (one in flight per key) and both levels are written → `miss`;
 * - the loader failing with an expired database entry at hand → that entry → `stale-if-error`.
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.js';
import { findCacheEntry, saveCacheEntry } from './catalog-cache.repository.js';

export type CacheOutcome = 'hit-memory' | 'hit-database' | 'miss' | 'stale-while-revalidate' | 'stale-if-error';

export interface TwoLevelCacheOptions {
  db: Db;
  log: FastifyBaseLogger;
  /** Database TTL, ms (ERP_CATALOG_CACHE_TTL_DAYS). */
  ttlMs: number;
  /** How long a memory entry is fresh, ms (default 5 minutes, never beyond the database expiry). */
  memoryFreshMs?: number;
  /** Wait before retrying a failed background refresh, ms (default 30 s). */
  retryAfterMs?: number;
  /** Keys kept in memory, least recently used dropped first (default 1000); the database keeps them all. */
  maxMemoryEntries?: number;
}

interface MemoryEntry {
  value: unknown;
  freshUntil: number;
  /** No background refresh before this instant (set after a failed one). */
  retryAt: number;
}

export function createTwoLevelCache(options: TwoLevelCacheOptions) {
  const memoryFreshMs = options.memoryFreshMs ?? 5 * 60_000;
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const memory = new LRUCache<string, MemoryEntry>({ max: options.maxMemoryEntries ?? 1000 });
  const inflight = new Map<string, Promise<unknown>>();

  function remember(key: string, value: unknown, freshUntil: number, retryAt = 0) {
    memory.set(key, { value, freshUntil, retryAt });
  }

  /** Runs the loader once per key at a time and writes both levels. */
  function load(key: string, loader: () => Promise<unknown>): Promise<unknown> {
    const running = inflight.get(key);
    if (running) return running;
    const job = (async () => {
      try {
        const value = await loader();
        const now = Date.now();
        const expiresAt = now + options.ttlMs;
        await saveCacheEntry(options.db, key, value, new Date(now), new Date(expiresAt));
        remember(key, value, Math.min(now + memoryFreshMs, expiresAt));
        return value;
      } finally {
        inflight.delete(key);
      }
    })();
    inflight.set(key, job);
    return job;
  }

  return {
    /** The value of `key` and where it came from; throws the loader's error when nothing is cached. */
    async get<T>(key: string, loader: () => Promise<T>): Promise<{ value: T; outcome: CacheOutcome }> {
      const now = Date.now();
      const mem = memory.get(key);
      if (mem && now < mem.freshUntil) return { value: mem.value as T, outcome: 'hit-memory' };
      if (mem) {
        if (!inflight.has(key) && now >= mem.retryAt) {
          load(key, loader).catch((err: unknown) => {
            // Keep serving the stale value; try again after a pause rather than on every request.
            mem.retryAt = Date.now() + retryAfterMs;
            options.log.warn({ err, key }, 'catalog background refresh failed; serving stale');
          });
        }
        return { value: mem.value as T, outcome: 'stale-while-revalidate' };
      }
      const row = await findCacheEntry(options.db, key);
      if (row && now < row.expiresAt.getTime()) {
        remember(key, row.payload, Math.min(now + memoryFreshMs, row.expiresAt.getTime()));
        return { value: row.payload as T, outcome: 'hit-database' };
      }
      try {
        return { value: (await load(key, loader)) as T, outcome: 'miss' };
      } catch (err) {
        if (!row) throw err;
        options.log.warn({ err, key }, 'catalog refresh failed; serving the expired database entry');
        // Stale in memory too, so the next requests do not wait for the ERP again before retryAfterMs.
        remember(key, row.payload, 0, Date.now() + retryAfterMs);
        return { value: row.payload as T, outcome: 'stale-if-error' };
      }
    },

    /** Drops the memory level (tests of the database level; a restart does the same). */
    clearMemory(): void {
      memory.clear();
    },
  };
}
export type TwoLevelCache = ReturnType<typeof createTwoLevelCache>;
