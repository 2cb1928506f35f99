/**
 * Queries of outbound messages: storing a message before it is sent, claiming it for a send attempt, and
 * recording the platform's answer. Statuses that arrive by webhook go through inbound.repository's
 * `applyStatus`, which only moves a status forward. The statements of every send (finding the
 * conversation, storing, claiming, recording the acceptance) are written in SQL and run prepared: planning
 * them cost PostgreSQL more than running them, and building them with Drizzle cost the service as much
 * (bench/RESULTS.md, "Outbound sending").
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { preparedIn, type Db } from '../../db/client.js';
import { rowFromJson } from '../../db/json-row.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import { conversation } from './conversation.table.js';
import { message } from './message.table.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import { previewOf, STATUS_RANK } from './inbound.repository.js';

/** A conversation and the channel account its messages leave from. */
export interface SendingConversation {
  conversation: ConversationRow;
  account: { id: number; externalAccountId: string; channelTypeCode: ConversationRow['channelTypeCode']; isActive: boolean };
}

const FIND_SENDING_CONVERSATION = `
select row_to_json(c) as conversation, a.id as account_id, a.external_account_id, a.channel_type_code, a.is_active
  from conversation c
  join entity_channel_account a on a.id = c.entity_channel_account_id
 where c.entity_id = $1 and c.id = $2`;

export async function findSendingConversation(db: Db, entityId: number, conversationId: number): Promise<SendingConversation | undefined> {
  const [row] = await preparedIn<{ conversation: Record<string, unknown>; account_id: number; external_account_id: string; channel_type_code: ConversationRow['channelTypeCode']; is_active: boolean }>(
    db,
    'interactions_find_sending_conversation',
    FIND_SENDING_CONVERSATION,
    [entityId, conversationId],
  );
  if (row === undefined) return undefined;
  return {
    conversation: rowFromJson(conversation, row.conversation),
    account: { id: row.account_id, externalAccountId: row.external_account_id, channelTypeCode: row.channel_type_code, isActive: row.is_active },
  };
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

const INSERT_PENDING = `
with m as (
  insert into message (entity_id, conversation_id, direction, type, text, content, external_message_id, client_message_id,
                       reply_to_external_id, sent_by_employee_id, origin, occurred_at, occurred_at_ms, status, status_rank)
  values ($1, $2, 'outbound', $3, $4, $5::jsonb, $6, $7, $8, $9, $10::jsonb, $11, $12, 'pending', 0)
  returning *
), c as (
  update conversation set last_message_id = m.id, last_message_preview = $13, last_message_at = m.occurred_at, updated_at = now()
    from m
   where conversation.id = m.conversation_id
  returning conversation.*
)
select (select row_to_json(m) from m) as message, (select row_to_json(c) from c) as conversation`;

/** Stores a pending outbound message and makes it the conversation's latest, in one statement. */
export async function insertPending(db: Db, values: PendingMessage): Promise<{ message: MessageRow; conversation: ConversationRow }> {
  const [row] = await preparedIn<{ message: Record<string, unknown>; conversation: Record<string, unknown> }>(db, 'interactions_insert_pending', INSERT_PENDING, [
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
  const rows = await preparedIn<{ message: Record<string, unknown>; external_chat_id: string; external_account_id: string }>(db, 'interactions_count_send_attempts', COUNT_ATTEMPTS, [ids]);
  const claimed = new Map<number, ClaimedMessage>();
  for (const row of rows) {
    const m = rowFromJson(message, row.message);
    claimed.set(m.id, { message: m, externalChatId: row.external_chat_id, externalAccountId: row.external_account_id });
  }
  return claimed;
}

const COUNT_ATTEMPTS = `
update message m set send_attempts = m.send_attempts + 1
  from conversation c
  join entity_channel_account a on a.id = c.entity_channel_account_id
 where m.id = any($1::int[]) and m.status = 'pending' and c.id = m.conversation_id
returning row_to_json(m) as message, c.external_chat_id, a.external_account_id`;

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
  const values = [accepted.map((a) => a.message.id), accepted.map((a) => a.message.entityId), accepted.map((a) => a.providerMessageId), accepted.map((a) => a.at.toISOString()), STATUS_RANK.sent];
  type Recorded = { id: number; status: MessageRow['status']; status_rank: number; sent_at: string | Date; delivered_at: string | Date | null; read_at: string | Date | null; failed_at: string | Date | null; errors: unknown };
  let rows: Recorded[];
  for (let attempt = 1; ; attempt++) {
    try {
      rows = await preparedIn<Recorded>(db, 'interactions_record_acceptances', RECORD_ACCEPTANCES, values);
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
    recorded.set(r.id, { ...a.message, externalMessageId: a.providerMessageId, status: r.status, statusRank: r.status_rank, sentAt: time(r.sent_at), deliveredAt: time(r.delivered_at), readAt: time(r.read_at), failedAt: time(r.failed_at), errors: r.errors });
  }
  return recorded;
}

/** Runs of the acceptance statement before a stub inserted concurrently fails the send attempt. */
const ACCEPTANCE_ATTEMPTS = 3;

// One statement (no transaction round trips): each stub is deleted and folded in atomically.
const RECORD_ACCEPTANCES = `
with accepted as (
  select * from unnest($1::int[], $2::int[], $3::text[], $4::timestamptz[]) as x(id, entity_id, provider_message_id, at)
), stub as (
  delete from message s
   using accepted x
   where s.entity_id = x.entity_id and s.external_message_id = x.provider_message_id and s.id <> x.id
  returning x.id as accepted_id, s.status, s.status_rank, s.sent_at, s.delivered_at, s.read_at, s.failed_at, s.errors
)
update message m set
  external_message_id = x.provider_message_id,
  status = case when coalesce(st.status_rank, 0) > $5::int then st.status else 'sent' end,
  status_rank = greatest($5::int, coalesce(st.status_rank, 0)),
  sent_at = coalesce(st.sent_at, x.at),
  delivered_at = st.delivered_at,
  read_at = st.read_at,
  failed_at = st.failed_at,
  errors = st.errors
  from accepted x
  left join stub st on st.accepted_id = x.id
 where m.id = x.id and m.status = 'pending'
returning m.id, m.status, m.status_rank, m.sent_at, m.delivered_at, m.read_at, m.failed_at, m.errors`;

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
