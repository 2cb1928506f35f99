/** The only reader and writer of `canned_reply` and `canned_reply_usage` (issue 49). */
import { and, asc, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { cannedReply, cannedReplyUsage } from '../model/index.js';

export type CannedReplyRow = typeof cannedReply.$inferSelect;
export type NewCannedReply = typeof cannedReply.$inferInsert;

/** Who asks: their own replies, their queues' and the entity's; a manager also every queue's. */
export interface ReplyReader {
  entityId: number;
  employeeId: number | null;
  queueIds: readonly number[];
  manager: boolean;
}

function usable(r: ReplyReader): SQL {
  return or(
    eq(cannedReply.scope, 'entity'),
    r.employeeId === null ? sql`false` : and(eq(cannedReply.scope, 'personal'), eq(cannedReply.ownerEmployeeId, r.employeeId)),
    r.manager
      ? eq(cannedReply.scope, 'queue')
      : r.queueIds.length > 0
        ? and(eq(cannedReply.scope, 'queue'), inArray(cannedReply.queueId, [...r.queueIds]))
        : sql`false`,
  )!;
}

/** Replies with the reader's own use count (0 when never used). */
function withMyUses(db: Db, reader: ReplyReader) {
  return db
    .select({ reply: cannedReply, myUses: sql<number>`coalesce(${cannedReplyUsage.uses}, 0)`.mapWith(Number) })
    .from(cannedReply)
    .leftJoin(cannedReplyUsage, and(eq(cannedReplyUsage.cannedReplyId, cannedReply.id), eq(cannedReplyUsage.employeeId, reader.employeeId ?? 0)));
}

const like = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The replies `reader` may use, at most `limit`: with `words` (search keys), those whose shortcode starts with
 * `prefix` or whose title and body hold every word, shortcode matches first, then title matches, then the most used;
 * with `shortcodeOnly`, those whose shortcode starts with `prefix`.
 */
export async function listUsable(
  db: Db,
  reader: ReplyReader,
  q: { scope?: string | undefined; prefix?: string | undefined; words: string[]; shortcodeOnly?: boolean; limit: number },
): Promise<(CannedReplyRow & { myUses: number })[]> {
  const conditions: SQL[] = [eq(cannedReply.entityId, reader.entityId), usable(reader)];
  if (q.scope !== undefined) conditions.push(eq(cannedReply.scope, q.scope as CannedReplyRow['scope']));
  let rank: SQL | undefined;
  if (q.shortcodeOnly && q.prefix !== undefined) conditions.push(sql`lower(${cannedReply.shortcode}) like ${`${like(q.prefix)}%`}`);
  else if (q.words.length > 0) {
    const byShortcode = sql`lower(${cannedReply.shortcode}) like ${`${like(q.prefix ?? '')}%`}`;
    const allWords = and(...q.words.map((w) => sql`${cannedReply.searchText} like ${`%${like(w)}%`}`))!;
    const inTitle = and(...q.words.map((w) => sql`${cannedReply.titleKey} like ${`%${like(w)}%`}`))!;
    conditions.push(q.prefix ? or(byShortcode, allWords)! : allWords);
    rank = sql`case when ${q.prefix ? byShortcode : sql`false`} then 0 when ${inTitle} then 1 else 2 end`;
  }
  const rows = await withMyUses(db, reader)
    .where(and(...conditions))
    .orderBy(...(rank ? [asc(rank)] : []), desc(cannedReply.usageCount), asc(cannedReply.shortcode), asc(cannedReply.id))
    .limit(q.limit);
  return rows.map((r) => ({ ...r.reply, myUses: r.myUses }));
}

/** Reply `id` of `reader`'s entity if `reader` may use it. */
export async function findUsable(db: Db, reader: ReplyReader, id: number): Promise<(CannedReplyRow & { myUses: number }) | undefined> {
  const [row] = await withMyUses(db, reader).where(and(eq(cannedReply.entityId, reader.entityId), eq(cannedReply.id, id), usable(reader)));
  return row && { ...row.reply, myUses: row.myUses };
}

export async function insertReply(db: Db, values: NewCannedReply): Promise<CannedReplyRow> {
  const [row] = await db.insert(cannedReply).values(values).returning();
  return row!;
}

export async function updateReply(db: Db, entityId: number, id: number, values: Partial<NewCannedReply>): Promise<CannedReplyRow | undefined> {
  const [row] = await db
    .update(cannedReply)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(cannedReply.entityId, entityId), eq(cannedReply.id, id)))
    .returning();
  return row;
}

export async function deleteReply(db: Db, entityId: number, id: number): Promise<void> {
  await db.delete(cannedReply).where(and(eq(cannedReply.entityId, entityId), eq(cannedReply.id, id)));
}

/** Counts one use of reply `id` by `employeeId` (and in the reply's total). */
export async function countUse(db: Db, entityId: number, id: number, employeeId: number | null): Promise<void> {
  await db
    .update(cannedReply)
    .set({ usageCount: sql`${cannedReply.usageCount} + 1` })
    .where(and(eq(cannedReply.entityId, entityId), eq(cannedReply.id, id)));
  if (employeeId === null) return;
  await db
    .insert(cannedReplyUsage)
    .values({ cannedReplyId: id, employeeId, entityId, uses: 1 })
    .onConflictDoUpdate({
      target: [cannedReplyUsage.cannedReplyId, cannedReplyUsage.employeeId],
      set: { uses: sql`${cannedReplyUsage.uses} + 1`, lastUsedAt: sql`now()` },
    });
}
