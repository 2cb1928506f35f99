/**
 * Drizzle queries of inbound intake, one by one inside the worker's transaction: opening conversations,
 * stub messages and delivery statuses (the batch statement of messages is inbound-message.repository.ts).
 */
import { and, eq, gte, isNull, lte, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { runStatementIn } from '../../../db/statement.js';
import { INSERT_CONVERSATIONS } from './inbound.sql.js';
import { conversation } from '../model/index.js';
import { message } from '../model/index.js';
import type { ConversationRow, MessageRow } from '../conversations/index.js';
import { STATUS_RANK, type DeliveryStatus } from '../model/index.js';

export async function lockConversation(db: Db, channelAccountId: number, externalChatId: string): Promise<ConversationRow | undefined> {
  const [row] = await db
    .select()
    .from(conversation)
    .where(and(eq(conversation.entityChannelAccountId, channelAccountId), eq(conversation.externalChatId, externalChatId)))
    .for('update');
  return row;
}

export type NewConversation = Required<
  Pick<
    typeof conversation.$inferInsert,
    'entityId' | 'entityChannelAccountId' | 'channelTypeCode' | 'externalChatId' | 'contactId' | 'leadId' | 'groupId' | 'senderName'
  >
>;

/** The key of a chat on an account: `<entityChannelAccountId>:<externalChatId>`. */
export const accountChatKey = (entityChannelAccountId: number, externalChatId: string) => `${entityChannelAccountId}:${externalChatId}`;

/**
 * Inserts conversations in one statement, skipping chats that have one already; returns the ids of those
 * it created by `accountChatKey`.
 */
export async function insertConversations(db: Db, rows: NewConversation[]): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const col = <T>(f: (r: NewConversation) => T) => rows.map(f);
  const created = await runStatementIn<{ id: number; entity_channel_account_id: number; external_chat_id: string }>(db, INSERT_CONVERSATIONS, [
    col((r) => r.entityId),
    col((r) => r.entityChannelAccountId),
    col((r) => r.channelTypeCode),
    col((r) => r.externalChatId),
    col((r) => r.contactId),
    col((r) => r.leadId),
    col((r) => r.groupId),
    col((r) => r.senderName),
  ]);
  return new Map(created.map((r) => [accountChatKey(r.entity_channel_account_id, r.external_chat_id), r.id]));
}

export async function insertMessage(db: Db, values: typeof message.$inferInsert): Promise<MessageRow | undefined> {
  const [row] = await db.insert(message).values(values).onConflictDoNothing().returning();
  return row;
}

export async function findMessageForUpdate(db: Db, entityId: number, externalMessageId: string): Promise<MessageRow | undefined> {
  const [row] = await db
    .select()
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.externalMessageId, externalMessageId)))
    .for('update');
  return row;
}

const STATUS_COLUMN = { sent: 'sentAt', delivered: 'deliveredAt', read: 'readAt', failed: 'failedAt' } as const;

/**
 * Records `status` at `at` on message `id`: the step's own time is kept (first one wins), and the current
 * status only moves to a higher rank, so arrival order never matters. Returns the row when the status
 * moved, the step's time was first recorded or `errors` were given; undefined when the status changes
 * nothing (a repeated status, such as the platform's `sent` after its answer was recorded), so nobody is
 * told of a change that did not happen.
 */
export async function applyStatus(db: Db, id: number, status: DeliveryStatus, at: Date, errors: unknown[] | null): Promise<MessageRow | undefined> {
  const rank = STATUS_RANK[status];
  const column = message[STATUS_COLUMN[status]];
  const [row] = await db
    .update(message)
    .set({
      [STATUS_COLUMN[status]]: sql`coalesce(${column}, ${at.toISOString()}::timestamptz)`,
      status: sql`case when ${message.statusRank} < ${rank} then ${status} else ${message.status} end`,
      statusRank: sql`greatest(${message.statusRank}, ${rank})`,
      ...(errors !== null ? { errors } : {}),
    })
    .where(errors !== null ? eq(message.id, id) : and(eq(message.id, id), or(lt(message.statusRank, rank), isNull(column))))
    .returning();
  return row;
}

/**
 * Watermark statuses (Messenger): every outbound message of the conversation up to `upTo` below the rank
 * that the platform has accepted. A message still pending (queued, or waiting for a retry) was not among
 * what the customer saw: marking it would also keep it from ever being sent.
 */
export async function applyWatermark(db: Db, conversationId: number, status: 'delivered' | 'read', upTo: Date, at: Date): Promise<MessageRow[]> {
  const rank = STATUS_RANK[status];
  const column = message[STATUS_COLUMN[status]];
  return db
    .update(message)
    .set({
      [STATUS_COLUMN[status]]: sql`coalesce(${column}, ${at.toISOString()}::timestamptz)`,
      status,
      statusRank: rank,
    })
    .where(
      and(
        eq(message.conversationId, conversationId),
        eq(message.direction, 'outbound'),
        lte(message.occurredAt, upTo),
        gte(message.statusRank, STATUS_RANK.sent),
        lt(message.statusRank, rank),
      ),
    )
    .returning();
}

export async function findConversation(db: Db, channelAccountId: number, externalChatId: string): Promise<ConversationRow | undefined> {
  const [row] = await db
    .select()
    .from(conversation)
    .where(and(eq(conversation.entityChannelAccountId, channelAccountId), eq(conversation.externalChatId, externalChatId)));
  return row;
}
