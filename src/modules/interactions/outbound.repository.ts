/**
 * Drizzle queries of outbound messages: storing a message before it is sent, claiming it for a send
 * attempt, and recording the platform's answer. Statuses that arrive by webhook go through
 * inbound.repository's `applyStatus`, which only moves a status forward.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { conversation } from './conversation.table.js';
import { entityChannelAccount } from './entity-channel-account.table.js';
import { message } from './message.table.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import { previewOf, STATUS_RANK } from './inbound.repository.js';

/** A conversation and the channel account its messages leave from. */
export interface SendingConversation {
  conversation: ConversationRow;
  account: { id: number; externalAccountId: string; channelTypeCode: ConversationRow['channelTypeCode']; isActive: boolean };
}

export async function findSendingConversation(db: Db, entityId: number, conversationId: number): Promise<SendingConversation | undefined> {
  const [row] = await db
    .select({ conversation, account: { id: entityChannelAccount.id, externalAccountId: entityChannelAccount.externalAccountId, channelTypeCode: entityChannelAccount.channelTypeCode, isActive: entityChannelAccount.isActive } })
    .from(conversation)
    .innerJoin(entityChannelAccount, eq(entityChannelAccount.id, conversation.entityChannelAccountId))
    .where(and(eq(conversation.entityId, entityId), eq(conversation.id, conversationId)));
  return row;
}

/** The contact's conversation with the latest message in the entity (the workflow messenger's `{ contactId }` target). */
export async function latestConversationOfContact(db: Db, entityId: number, contactId: number): Promise<number | undefined> {
  const [row] = await db
    .select({ id: conversation.id })
    .from(conversation)
    .where(and(eq(conversation.entityId, entityId), eq(conversation.contactId, contactId)))
    .orderBy(sql`${conversation.lastMessageAt} desc nulls last`, desc(conversation.id))
    .limit(1);
  return row?.id;
}

/** Message `id` of the conversation (either direction), for replies and reactions. */
export async function findConversationMessage(db: Db, entityId: number, conversationId: number, id: number): Promise<MessageRow | undefined> {
  const [row] = await db
    .select()
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.conversationId, conversationId), eq(message.id, id)));
  return row;
}

/** The latest inbound message of the conversation (the one a read receipt acknowledges). */
export async function latestInbound(db: Db, entityId: number, conversationId: number): Promise<MessageRow | undefined> {
  const [row] = await db
    .select()
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.conversationId, conversationId), eq(message.direction, 'inbound')))
    .orderBy(desc(message.occurredAtMs), desc(message.id))
    .limit(1);
  return row;
}

/** Stores a pending outbound message and makes it the conversation's latest. */
export async function insertPending(db: Db, values: Omit<typeof message.$inferInsert, 'direction' | 'status' | 'statusRank'> & { clientMessageId: string }): Promise<{ message: MessageRow; conversation: ConversationRow }> {
  const [row] = await db
    .insert(message)
    .values({ ...values, direction: 'outbound', status: 'pending', statusRank: 0 })
    .returning();
  const [conv] = await db
    .update(conversation)
    .set({ lastMessageId: row!.id, lastMessagePreview: previewOf(row!), lastMessageAt: row!.occurredAt, updatedAt: new Date() })
    .where(eq(conversation.id, row!.conversationId))
    .returning();
  return { message: row!, conversation: conv! };
}

/** The message sent with idempotency key `clientMessageId` in the entity. */
export async function findByClientMessageId(db: Db, entityId: number, clientMessageId: string): Promise<MessageRow | undefined> {
  const [row] = await db
    .select()
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.clientMessageId, clientMessageId)));
  return row;
}

export async function getMessage(db: Db, id: number, lock = false): Promise<MessageRow | undefined> {
  const q = db.select().from(message).where(eq(message.id, id));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

/**
 * Counts one more send attempt of a pending message and returns it with the chat and the account it
 * leaves from, in one statement; undefined when it is no longer pending.
 */
export async function countAttempt(db: Db, id: number): Promise<{ message: MessageRow; externalChatId: string; externalAccountId: string } | undefined> {
  const [row] = await db
    .update(message)
    .set({ sendAttempts: sql`${message.sendAttempts} + 1` })
    .from(conversation)
    .innerJoin(entityChannelAccount, eq(entityChannelAccount.id, conversation.entityChannelAccountId))
    .where(and(eq(message.id, id), eq(message.status, 'pending'), eq(conversation.id, message.conversationId)))
    .returning({ message, externalChatId: conversation.externalChatId, externalAccountId: entityChannelAccount.externalAccountId });
  return row;
}

/**
 * Records that the platform accepted message `id` as `providerMessageId` at `at`. A status webhook that
 * arrived before this answer left a stub under that id: its steps are carried over (the higher status
 * wins) and the stub removed, so the message keeps one row and its full delivery history.
 */
export async function recordAccepted(db: Db, m: MessageRow, providerMessageId: string, at: Date): Promise<MessageRow | undefined> {
  // One statement (no transaction round trips): the stub, if any, is deleted and folded in atomically.
  const rows = await queryRows<{ status: MessageRow['status']; status_rank: number; sent_at: string | Date; delivered_at: string | Date | null; read_at: string | Date | null; failed_at: string | Date | null; errors: unknown }>(
    db,
    sql`
    with stub as (
      delete from message
      where entity_id = ${m.entityId} and external_message_id = ${providerMessageId} and id <> ${m.id}
      returning status, status_rank, sent_at, delivered_at, read_at, failed_at, errors
    )
    update message set
      external_message_id = ${providerMessageId},
      status = case when coalesce((select status_rank from stub), 0) > ${STATUS_RANK.sent} then (select status from stub) else 'sent' end,
      status_rank = greatest(${STATUS_RANK.sent}, coalesce((select status_rank from stub), 0)),
      sent_at = coalesce((select sent_at from stub), ${at.toISOString()}::timestamptz),
      delivered_at = (select delivered_at from stub),
      read_at = (select read_at from stub),
      failed_at = (select failed_at from stub),
      errors = (select errors from stub)
    where id = ${m.id} and status = 'pending'
    returning status, status_rank, sent_at, delivered_at, read_at, failed_at, errors`,
  );
  const r = rows[0];
  if (r === undefined) return undefined;
  const time = (v: string | Date | null) => (v === null ? null : new Date(v));
  return { ...m, externalMessageId: providerMessageId, status: r.status, statusRank: r.status_rank, sentAt: time(r.sent_at), deliveredAt: time(r.delivered_at), readAt: time(r.read_at), failedAt: time(r.failed_at), errors: r.errors };
}

/** Marks a pending message failed with the platform's error. */
export async function recordFailed(db: Db, id: number, error: Record<string, unknown>, at: Date): Promise<MessageRow | undefined> {
  const [row] = await db
    .update(message)
    .set({ status: 'failed', statusRank: STATUS_RANK.failed, failedAt: at, errors: [error] })
    .where(and(eq(message.id, id), eq(message.status, 'pending')))
    .returning();
  return row;
}

/** Puts a failed, never retried message back to pending for its one retry; undefined otherwise. */
export async function resetForRetry(db: Db, id: number, at: Date): Promise<MessageRow | undefined> {
  const [row] = await db
    .update(message)
    .set({ status: 'pending', statusRank: 0, failedAt: null, errors: null, retriedAt: at })
    .where(and(eq(message.id, id), eq(message.status, 'failed'), eq(message.direction, 'outbound'), sql`${message.retriedAt} is null`, sql`${message.clientMessageId} is not null`))
    .returning();
  return row;
}

/** Whether a message of the entity carries platform media `mediaId` (the media proxy's tenant check). */
export async function entityHasMedia(db: Db, entityId: number, mediaId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: message.id })
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.mediaId, mediaId)))
    .limit(1);
  return row !== undefined;
}
