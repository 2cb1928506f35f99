/** Drizzle queries of the conversations API; every function is scoped by entity. */
import { and, desc, eq, gt, ilike, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { conversation } from './conversation.table.js';
import { message } from './message.table.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import type { ChannelTypeCode } from './interactions.enums.js';

export interface InboxFilter {
  filter: 'mine' | 'unassigned' | 'all';
  employeeId: number;
  channelTypeCode?: ChannelTypeCode | undefined;
  followUp?: boolean | undefined;
  unread?: boolean | undefined;
  q?: string | undefined;
  /** Keyset: conversations strictly after (sortKeyMs, id) in (last_message_at desc, id desc) order. */
  after?: { sortKeyMs: number; id: number } | undefined;
  limit: number;
}

const sortKey = sql<number>`coalesce(floor(extract(epoch from ${conversation.lastMessageAt}) * 1000), 0)`;

export async function listConversations(db: Db, entityId: number, f: InboxFilter): Promise<ConversationRow[]> {
  const conds: (SQL | undefined)[] = [eq(conversation.entityId, entityId)];
  if (f.filter === 'mine') conds.push(and(eq(conversation.assignedEmployeeId, f.employeeId), eq(conversation.assignmentStatus, 'assigned')));
  if (f.filter === 'unassigned') conds.push(sql`${conversation.assignmentStatus} <> 'assigned'`);
  if (f.channelTypeCode !== undefined) conds.push(eq(conversation.channelTypeCode, f.channelTypeCode));
  if (f.followUp !== undefined) conds.push(eq(conversation.followUp, f.followUp));
  if (f.unread === true) conds.push(gt(conversation.unreadCount, 0));
  if (f.unread === false) conds.push(eq(conversation.unreadCount, 0));
  if (f.q !== undefined) {
    const pattern = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(
      or(
        ilike(conversation.senderName, pattern),
        ilike(conversation.externalChatId, pattern),
        ilike(conversation.lastMessagePreview, pattern),
        sql`exists (select 1 from ${message} m where m.conversation_id = ${conversation.id} and m.text ilike ${pattern})`,
      ),
    );
  }
  if (f.after) conds.push(sql`(${sortKey}, ${conversation.id}) < (${f.after.sortKeyMs}, ${f.after.id})`);
  return db
    .select()
    .from(conversation)
    .where(and(...conds))
    .orderBy(desc(sortKey), desc(conversation.id))
    .limit(f.limit);
}

export async function getConversation(db: Db, entityId: number, id: number, lock = false): Promise<ConversationRow | undefined> {
  const q = db.select().from(conversation).where(and(eq(conversation.entityId, entityId), eq(conversation.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

export async function updateConversation(db: Db, entityId: number, id: number, values: Partial<typeof conversation.$inferInsert>): Promise<ConversationRow | undefined> {
  const [row] = await db
    .update(conversation)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(conversation.entityId, entityId), eq(conversation.id, id)))
    .returning();
  return row;
}

/** Newest first; keyset after (occurred_at_ms, id). */
export async function history(db: Db, entityId: number, conversationId: number, limit: number, before?: { ms: number; id: number }): Promise<MessageRow[]> {
  return db
    .select()
    .from(message)
    .where(
      and(
        eq(message.entityId, entityId),
        eq(message.conversationId, conversationId),
        before ? or(lt(message.occurredAtMs, before.ms), and(eq(message.occurredAtMs, before.ms), lt(message.id, before.id))) : undefined,
      ),
    )
    .orderBy(desc(message.occurredAtMs), desc(message.id))
    .limit(limit);
}

/** How an event names its conversation: directly, by the chat of an inbound message, or by the contact (its latest conversation). */
export type ConversationRef = { conversationId: number } | { entityChannelAccountId: number; externalChatId: string } | { contactId: number };

/** The conversation `ref` names in the entity (for a contact: the one with the latest message). */
export async function latestConversationOf(db: Db, entityId: number, ref: ConversationRef): Promise<{ id: number } | undefined> {
  const where =
    'conversationId' in ref
      ? and(eq(conversation.entityId, entityId), eq(conversation.id, ref.conversationId))
      : 'externalChatId' in ref
        ? and(eq(conversation.entityId, entityId), eq(conversation.entityChannelAccountId, ref.entityChannelAccountId), eq(conversation.externalChatId, ref.externalChatId))
        : and(eq(conversation.entityId, entityId), eq(conversation.contactId, ref.contactId));
  const [row] = await db.select({ id: conversation.id }).from(conversation).where(where).orderBy(sql`${conversation.lastMessageAt} desc nulls last`, desc(conversation.id)).limit(1);
  return row;
}
