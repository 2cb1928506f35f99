/**
 * Queries of `media_object`. Every function but `findReadyByPublicKey` (public content is addressed by
 * its unguessable key alone) and the housekeeping scans takes the caller's entity.
 */
import { and, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mediaObject, type MediaObjectRow } from './media.table.js';

export type NewMediaObject = typeof mediaObject.$inferInsert;

export async function insertMedia(db: Db, values: NewMediaObject): Promise<MediaObjectRow> {
  const [row] = await db.insert(mediaObject).values(values).returning();
  return row!;
}

export async function findMedia(db: Db, entityId: number, id: number): Promise<MediaObjectRow | undefined> {
  const [row] = await db.select().from(mediaObject).where(and(eq(mediaObject.entityId, entityId), eq(mediaObject.id, id)));
  return row;
}

export async function findMediaMany(db: Db, entityId: number, ids: number[]): Promise<MediaObjectRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(mediaObject).where(and(eq(mediaObject.entityId, entityId), inArray(mediaObject.id, ids)));
}

/** A job's re-read: by id alone (payloads carry ids only). */
export async function findMediaById(db: Db, id: number): Promise<MediaObjectRow | undefined> {
  const [row] = await db.select().from(mediaObject).where(eq(mediaObject.id, id));
  return row;
}

/** The ready object whose original or optimized key is `key`. */
export async function findReadyByPublicKey(db: Db, key: string): Promise<MediaObjectRow | undefined> {
  const [row] = await db
    .select()
    .from(mediaObject)
    .where(and(eq(mediaObject.status, 'ready'), or(eq(mediaObject.optimizedKey, key), eq(mediaObject.originalKey, key))))
    .limit(1);
  return row;
}

/** Moves `id` from `from` to the given state; returns the row, or undefined when it was not in `from`. */
export async function transition(
  db: Db,
  id: number,
  from: MediaObjectRow['status'][],
  set: Partial<Omit<MediaObjectRow, 'id' | 'entityId'>>,
): Promise<MediaObjectRow | undefined> {
  const [row] = await db
    .update(mediaObject)
    .set({ ...set, updatedAt: sql`now()` })
    .where(and(eq(mediaObject.id, id), inArray(mediaObject.status, from)))
    .returning();
  return row;
}

/** Uploads presigned before `before` and never finalized, plus failed ones (oldest first). */
export async function abandonedUploads(db: Db, before: Date, limit: number): Promise<MediaObjectRow[]> {
  return db
    .select()
    .from(mediaObject)
    .where(and(inArray(mediaObject.status, ['pending', 'failed']), lt(mediaObject.createdAt, before)))
    .orderBy(mediaObject.createdAt)
    .limit(limit);
}

export async function deleteMedia(db: Db, id: number): Promise<void> {
  await db.delete(mediaObject).where(eq(mediaObject.id, id));
}

/** Ready objects processed before `before` whose original is still kept beside a distinct optimized version. */
export async function expiredOriginals(db: Db, before: Date, limit: number): Promise<MediaObjectRow[]> {
  return db
    .select()
    .from(mediaObject)
    .where(
      and(
        eq(mediaObject.status, 'ready'),
        isNull(mediaObject.originalDeletedAt),
        isNotNull(mediaObject.optimizedKey),
        ne(mediaObject.optimizedKey, mediaObject.originalKey),
        lt(mediaObject.processedAt, before),
      ),
    )
    .limit(limit);
}

export async function markOriginalDeleted(db: Db, id: number): Promise<void> {
  await db.update(mediaObject).set({ originalDeletedAt: sql`now()`, updatedAt: sql`now()` }).where(eq(mediaObject.id, id));
}

/** Objects left in `processing` since before `before` (a process that stopped mid-job), for re-dispatch. */
export async function stalledProcessing(db: Db, before: Date, limit: number): Promise<MediaObjectRow[]> {
  return db
    .select()
    .from(mediaObject)
    .where(and(eq(mediaObject.status, 'processing'), lt(mediaObject.updatedAt, before)))
    .limit(limit);
}
