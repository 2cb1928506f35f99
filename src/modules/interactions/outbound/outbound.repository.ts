/**
 * Queries of outbound messages: storing a message before it is sent, claiming it for a send attempt, and
 * recording the platform's answer. Statuses that arrive by webhook go through inbound.repository's
 * `applyStatus`, which only moves a status forward. The statements of every send (finding the
 * conversation, storing, claiming, recording the acceptance) are written in SQL and run prepared: planning
 * them cost PostgreSQL more than running them, and building them with Drizzle cost the service as much
 * (bench/RESULTS.md, "Outbound sending").
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { runStatementIn } from '../../../db/statement.js';
import { COUNT_ATTEMPTS, FIND_SENDING_CONVERSATION, INSERT_PENDING, RECORD_ACCEPTANCES } from './outbound.sql.js';
import { rowFromJson } from '../../../db/json-row.js';
import { isUniqueViolation } from '../../../db/db-errors.js';
import { conversation } from '../model/index.js';
import { message } from '../model/index.js';
import { previewOf, type ConversationRow, type MessageRow } from '../conversations/index.js';
import { STATUS_RANK } from '../model/index.js';

/** A conversation and the channel account its messages leave from. */
export interface SendingConversation {
  conversation: ConversationRow;
  account: { id: number; externalAccountId: string; channelTypeCode: ConversationRow['channelTypeCode']; isActive: boolean };
}

export async function findSendingConversation(db: Db, entityId: number, conversationId: number): Promise<SendingConversation | undefined> {
  const [row] = await runStatementIn<{
    conversation: Record<string, unknown>;
    account_id: number;
    external_account_id: string;
    channel_type_code: ConversationRow['channelTypeCode'];
    is_active: boolean;
  }>(db, FIND_SENDING_CONVERSATION, [entityId, conversationId]);
  if (row === undefined) return undefined;
  return {
    conversation: rowFromJson(conversation, row.conversation),
    account: { id: row.account_id, externalAccountId: row.external_account_id, channelTypeCode: row.channel_type_code, isActive: row.is_active },
  };
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

/** A pending outbound message as `insertPending` stores it. */
export interface PendingMessage {
  entityId: number;
  conversationId: number;
  type: string;
  text: string | null;
  content: unknown;
  externalMessageId: string;
  clientMessageId: string;
  replyToExternalId: string | null;
  sentByEmployeeId: number | null;
  origin: unknown;
  occurredAt: Date;
}

/** Stores a pending outbound message and makes it the conversation's latest, in one statement. */
export async function insertPending(db: Db, values: PendingMessage): Promise<{ message: MessageRow; conversation: ConversationRow }> {
  const [row] = await runStatementIn<{ message: Record<string, unknown>; conversation: Record<string, unknown> }>(db, INSERT_PENDING, [
    values.entityId,
    values.conversationId,
    values.type,
    values.text,
    JSON.stringify(values.content),
    values.externalMessageId,
    values.clientMessageId,
    values.replyToExternalId,
    values.sentByEmployeeId,
    values.origin === null ? null : JSON.stringify(values.origin),
    values.occurredAt.toISOString(),
    values.occurredAt.getTime(),
    previewOf(values),
  ]);
  return { message: rowFromJson(message, row!.message), conversation: rowFromJson(conversation, row!.conversation) };
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

/** A pending message claimed for a send attempt, with the chat and the account it leaves from. */
export interface ClaimedMessage {
  message: MessageRow;
  externalChatId: string;
  externalAccountId: string;
}

/**
 * Counts one more send attempt of each pending message of `ids`, in one statement; returns the claimed
 * ones by id (a message no longer pending is absent).
 */
export async function countAttempts(db: Db, ids: readonly number[]): Promise<Map<number, ClaimedMessage>> {
  const rows = await runStatementIn<{ message: Record<string, unknown>; external_chat_id: string; external_account_id: string }>(db, COUNT_ATTEMPTS, [ids]);
  const claimed = new Map<number, ClaimedMessage>();
  for (const row of rows) {
    const m = rowFromJson(message, row.message);
    claimed.set(m.id, { message: m, externalChatId: row.external_chat_id, externalAccountId: row.external_account_id });
  }
  return claimed;
}

/** The platform's acceptance of a pending message: the id it gave and when it answered. */
export interface Acceptance {
  message: MessageRow;
  providerMessageId: string;
  at: Date;
}

/**
 * Records each acceptance of `accepted`, in one statement, and returns the messages recorded (a message
 * no longer pending is absent) by id. A status webhook that arrived before the platform's answer left a
 * stub under the provider's id: its steps are carried over (the higher status wins) and the stub removed,
 * so the message keeps one row and its full delivery history.
 *
 * A status webhook recorded at the same moment can insert its stub after this statement read the table:
 * the statement then fails on the platform id's uniqueness (once that stub is committed) and changes
 * nothing, so it runs again, and then folds the stub. Only after `ACCEPTANCE_ATTEMPTS` such failures
 * is the error thrown (the send attempt then fails and is retried, with the same idempotency key). Give
 * it the database, not a transaction: a failed statement would abort the transaction it ran in.
 */
export async function recordAcceptances(db: Db, accepted: readonly Acceptance[]): Promise<Map<number, MessageRow>> {
  const values = [
    accepted.map((a) => a.message.id),
    accepted.map((a) => a.message.entityId),
    accepted.map((a) => a.providerMessageId),
    accepted.map((a) => a.at.toISOString()),
    STATUS_RANK.sent,
  ];
  type Recorded = {
    id: number;
    status: MessageRow['status'];
    status_rank: number;
    sent_at: string | Date;
    delivered_at: string | Date | null;
    read_at: string | Date | null;
    failed_at: string | Date | null;
    errors: unknown;
  };
  let rows: Recorded[];
  for (let attempt = 1; ; attempt++) {
    try {
      rows = await runStatementIn<Recorded>(db, RECORD_ACCEPTANCES, values);
      break;
    } catch (err) {
      if (attempt < ACCEPTANCE_ATTEMPTS && isUniqueViolation(err, 'message_entity_id_external_message_id_uq')) continue;
      throw err;
    }
  }
  const time = (v: string | Date | null) => (v === null ? null : new Date(v));
  const byId = new Map(accepted.map((a) => [a.message.id, a]));
  const recorded = new Map<number, MessageRow>();
  for (const r of rows) {
    const a = byId.get(r.id)!;
    recorded.set(r.id, {
      ...a.message,
      externalMessageId: a.providerMessageId,
      status: r.status,
      statusRank: r.status_rank,
      sentAt: time(r.sent_at),
      deliveredAt: time(r.delivered_at),
      readAt: time(r.read_at),
      failedAt: time(r.failed_at),
      errors: r.errors,
    });
  }
  return recorded;
}

/** Runs of the acceptance statement before a stub inserted concurrently fails the send attempt. */
const ACCEPTANCE_ATTEMPTS = 3;

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
    .where(
      and(
        eq(message.id, id),
        eq(message.status, 'failed'),
        eq(message.direction, 'outbound'),
        sql`${message.retriedAt} is null`,
        sql`${message.clientMessageId} is not null`,
      ),
    )
    .returning();
  return row;
}
