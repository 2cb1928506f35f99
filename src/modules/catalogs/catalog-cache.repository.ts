import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { externalCatalogCaches } from './catalog-cache.table.js';

export async function findCacheEntry(db: Db, key: string) {
  const [row] = await db.select().from(externalCatalogCaches).where(eq(externalCatalogCaches.key, key)).limit(1);
  return row;
}

export async function saveCacheEntry(db: Db, key: string, payload: unknown, fetchedAt: Date, expiresAt: Date): Promise<void> {
  await db
    .insert(externalCatalogCaches)
    .values({ key, payload, fetchedAt, expiresAt })
    .onConflictDoUpdate({ target: externalCatalogCaches.key, set: { payload, fetchedAt, expiresAt } });
}
