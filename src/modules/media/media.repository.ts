/**
 * Queries of `media_object`. Every function but `findReadyByPublicKey` (public content is addressed by
 * its unguessable key alone) and the housekeeping scans takes the caller's entity.
 */
import { and, count, eq, gte, inArray, isNotNull, isNull, lt, min, ne, or, sql, sum } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mediaObject, type MediaObjectRow } from './media.table.js';

export type NewMediaObject = typeof mediaObject.$inferInsert;

export async function insertMedia(db: Db, values: NewMediaObject): Promise<MediaObjectRow> {
  const [row] = await db.insert(mediaObject).values(values).returning();
  return row!;
}

export async function findMedia(db: Db, entityId: number, id: number): Promise<MediaObjectRow | undefined> {
  const [row] = await db
    .select()
    .from(mediaObject)
    .where(and(eq(mediaObject.entityId, entityId), eq(mediaObject.id, id)));
  return row;
}

export async function findMediaMany(db: Db, entityId: number, ids: number[]): Promise<MediaObjectRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(mediaObject)
    .where(and(eq(mediaObject.entityId, entityId), inArray(mediaObject.id, ids)));
}

/** The object whose original (sealed) key is `key`, any entity: the embedded store asks whether its upload is still open. */
export async function findByOriginalKey(db: Db, key: string): Promise<MediaObjectRow | undefined> {
  const [row] = await db.select().from(mediaObject).where(eq(mediaObject.originalKey, key));
  return row;
}

/** First key of the quota's advisory locks (the second is the entity id). */
const MEDIA_QUOTA_LOCK = 0x6d656469;

/**
 * Serializes the quota check and insert of one entity's uploads until `tx` ends (a transaction-scoped
 * advisory lock; other entities are not held up).
 */
export async function lockEntityUploads(tx: Db, entityId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${MEDIA_QUOTA_LOCK}, ${entityId}::int)`);
}

/**
 * What an entity's staff holds against its quotas: declared bytes of its objects that did not fail, and the
 * uploads presigned since `since` with the oldest of them (when it leaves the window). Visitors' uploads
 * are not the staff's (`visitorUploadUsage`).
 */
export async function uploadUsage(db: Db, entityId: number, since: Date): Promise<{ bytes: number; recentUploads: number; oldestRecent: Date | null }> {
  const [held] = await db
    .select({ bytes: sum(mediaObject.size) })
    .from(mediaObject)
    .where(and(eq(mediaObject.entityId, entityId), ne(mediaObject.status, 'failed'), isNull(mediaObject.visitorId)));
  const [recent] = await db
    .select({ n: count(), oldest: min(mediaObject.createdAt) })
    .from(mediaObject)
    .where(and(eq(mediaObject.entityId, entityId), gte(mediaObject.createdAt, since), isNull(mediaObject.visitorId)));
  return { bytes: Number(held?.bytes ?? 0), recentUploads: recent?.n ?? 0, oldestRecent: recent?.oldest ? new Date(recent.oldest) : null };
}

/** First key of the website's advisory locks for its visitors' uploads (the second is the website id). */
const VISITOR_UPLOAD_LOCK = 0x76697369;

/** Serializes the budget checks of one website's visitor uploads until `tx` ends. */
export async function lockWebsiteUploads(tx: Db, websiteId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${VISITOR_UPLOAD_LOCK}, ${websiteId}::int)`);
}

const SENT = sql`${mediaObject.status} in ('processing', 'ready')`;

/**
 * What a website chat visitor holds against its budgets: bytes of its uploads sent (finalized) since
 * `since`, the same for its website, and its uploads presigned since `pendingSince` and not sent yet.
 */
export async function visitorUploadUsage(
  db: Db,
  entityId: number,
  visitor: { id: number; websiteId: number },
  since: Date,
  pendingSince: Date,
): Promise<{ visitorBytes: number; websiteBytes: number; pending: number }> {
  const [mine] = await db
    .select({
      bytes: sql<string>`coalesce(sum(${mediaObject.size}) filter (where ${SENT}), 0)`,
      pending: sql<string>`count(*) filter (where ${mediaObject.status} = 'pending' and ${mediaObject.createdAt} >= ${pendingSince.toISOString()})`,
    })
    .from(mediaObject)
    .where(and(eq(mediaObject.visitorId, visitor.id), eq(mediaObject.entityId, entityId), gte(mediaObject.createdAt, since)));
  const [site] = await db
    .select({ bytes: sql<string>`coalesce(sum(${mediaObject.size}) filter (where ${SENT}), 0)` })
    .from(mediaObject)
    .where(and(eq(mediaObject.websiteId, visitor.websiteId), eq(mediaObject.entityId, entityId), gte(mediaObject.createdAt, since)));
  return { visitorBytes: Number(mine?.bytes ?? 0), pending: Number(mine?.pending ?? 0), websiteBytes: Number(site?.bytes ?? 0) };
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

/**
 * Uploads presigned before `before` and never finalized, plus failed ones, and visitors' uploads presigned
 * before `visitorBefore` and never finalized (oldest first).
 */
export async function abandonedUploads(db: Db, before: Date, visitorBefore: Date, limit: number): Promise<MediaObjectRow[]> {
  return db
    .select()
    .from(mediaObject)
    .where(
      or(
        and(inArray(mediaObject.status, ['pending', 'failed']), lt(mediaObject.createdAt, before)),
        and(eq(mediaObject.status, 'pending'), lt(mediaObject.createdAt, visitorBefore), isNotNull(mediaObject.visitorId)),
      ),
    )
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
  await db
    .update(mediaObject)
    .set({ originalDeletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(mediaObject.id, id));
}

/** Objects left in `processing` since before `before` (a process that stopped mid-job), for re-dispatch. */
export async function stalledProcessing(db: Db, before: Date, limit: number): Promise<MediaObjectRow[]> {
  return db
    .select()
    .from(mediaObject)
    .where(and(eq(mediaObject.status, 'processing'), lt(mediaObject.updatedAt, before)))
    .limit(limit);
}
