/**
 * Drizzle queries of the projection: channel accounts, conversations and messages, one by one inside the
 * worker's transaction (the batched hot path is message-batch.repository.ts).
 */
import { and, eq, inArray, lte, lt, sql } from 'drizzle-orm';
import { preparedIn, type Db } from '../../db/client.js';
import { entityChannelAccount } from '../records/entity-channel-account.table.js';
import { conversation } from './conversation.table.js';
import { message } from './message.table.js';
import { interactionCommunicationsConfig } from './communications-config.table.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import type { Platform } from './canonical.js';

export type ChannelTypeCode = 'chatapp_api' | 'chatapp_business' | 'social_messenger' | 'social_dm';

/** Channel type codes an account of `platform` may carry. */
export const PLATFORM_CODES: Record<Platform, ChannelTypeCode[]> = {
  whatsapp: ['chatapp_api', 'chatapp_business'],
  messenger: ['social_messenger'],
  instagram: ['social_dm'],
};

export interface ChannelAccountRef {
  id: number;
  entityId: number;
  channelTypeCode: ChannelTypeCode;
}

export async function findChannelAccount(db: Db, platform: Platform, externalAccountId: string): Promise<ChannelAccountRef | undefined> {
  const [row] = await db
    .select({ id: entityChannelAccount.id, entityId: entityChannelAccount.entityId, channelTypeCode: entityChannelAccount.channelTypeCode })
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.externalAccountId, externalAccountId), inArray(entityChannelAccount.channelTypeCode, PLATFORM_CODES[platform]), eq(entityChannelAccount.isActive, true)))
    .limit(1);
  return row;
}

/** The entity whose communications config names `externalAppId` or `communicationsEntityId`. */
export async function findEntityByCommunicationsConfig(db: Db, externalAppId: string | null, communicationsEntityId: string | null): Promise<number | undefined> {
  if (externalAppId === null && communicationsEntityId === null) return undefined;
  const conds = [];
  if (externalAppId !== null) conds.push(eq(interactionCommunicationsConfig.externalAppId, externalAppId));
  if (communicationsEntityId !== null) conds.push(eq(interactionCommunicationsConfig.communicationsEntityId, communicationsEntityId));
  const [row] = await db
    .select({ entityId: interactionCommunicationsConfig.entityId })
    .from(interactionCommunicationsConfig)
    .where(conds.length === 1 ? conds[0] : sql`${conds[0]} or ${conds[1]}`)
    .limit(1);
  return row?.entityId;
}

/** Registers a receiving account learned through the communications config (first event of a new number or page). */
export async function registerChannelAccount(db: Db, entityId: number, platform: Platform, externalAccountId: string): Promise<ChannelAccountRef> {
  const code = PLATFORM_CODES[platform][0]!;
  await db.insert(entityChannelAccount).values({ entityId, channelTypeCode: code, externalAccountId, displayName: `${platform} ${externalAccountId}` }).onConflictDoNothing();
  const found = await findChannelAccount(db, platform, externalAccountId);
  if (!found) throw new Error(`Channel account ${externalAccountId} could not be registered`);
  return found;
}

export async function lockConversation(db: Db, channelAccountId: number, externalChatId: string): Promise<ConversationRow | undefined> {
  const [row] = await db
    .select()
    .from(conversation)
    .where(and(eq(conversation.entityChannelAccountId, channelAccountId), eq(conversation.externalChatId, externalChatId)))
    .for('update');
  return row;
}

export type NewConversation = Required<Pick<typeof conversation.$inferInsert, 'entityId' | 'entityChannelAccountId' | 'channelTypeCode' | 'externalChatId' | 'contactId' | 'leadId' | 'groupId' | 'senderName'>>;

export async function insertConversation(db: Db, values: NewConversation): Promise<ConversationRow | undefined> {
  const [row] = await db.insert(conversation).values(values).onConflictDoNothing().returning();
  return row;
}

const INSERT_CONVERSATIONS = `
  insert into conversation (entity_id, entity_channel_account_id, channel_type_code, external_chat_id, contact_id, lead_id, group_id, sender_name)
  select * from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[])
  on conflict do nothing
  returning entity_channel_account_id, external_chat_id`;

/**
 * Inserts conversations in one statement, skipping chats that have one already; returns the keys
 * (`<entityChannelAccountId>:<externalChatId>`) of those it created.
 */
export async function insertConversations(db: Db, rows: NewConversation[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const col = <T>(f: (r: NewConversation) => T) => rows.map(f);
  const created = await preparedIn<{ entity_channel_account_id: number; external_chat_id: string }>(db, 'interactions_insert_conversations', INSERT_CONVERSATIONS, [
    col((r) => r.entityId),
    col((r) => r.entityChannelAccountId),
    col((r) => r.channelTypeCode),
    col((r) => r.externalChatId),
    col((r) => r.contactId),
    col((r) => r.leadId),
    col((r) => r.groupId),
    col((r) => r.senderName),
  ]);
  return new Set(created.map((r) => `${r.entity_channel_account_id}:${r.external_chat_id}`));
}

export async function insertMessage(db: Db, values: typeof message.$inferInsert): Promise<MessageRow | undefined> {
  const [row] = await db.insert(message).values(values).onConflictDoNothing().returning();
  return row;
}

/** The inbox preview of a message: its text (first 200 UTF-16 units) or `[type]` when it has none. */
export function previewOf(m: { text: string | null; type: string }): string {
  return m.text !== null && m.text !== '' ? m.text.slice(0, 200) : `[${m.type}]`;
}

export async function findMessageForUpdate(db: Db, entityId: number, externalMessageId: string): Promise<MessageRow | undefined> {
  const [row] = await db.select().from(message).where(and(eq(message.entityId, entityId), eq(message.externalMessageId, externalMessageId))).for('update');
  return row;
}

export const STATUS_RANK = { sent: 1, delivered: 2, read: 3, failed: 4 } as const;
const STATUS_COLUMN = { sent: 'sentAt', delivered: 'deliveredAt', read: 'readAt', failed: 'failedAt' } as const;

/**
 * Records `status` at `at` on message `id`: the step's own time is kept (first one wins), and the current
 * status only moves to a higher rank, so arrival order never matters.
 */
export async function applyStatus(db: Db, id: number, status: keyof typeof STATUS_RANK, at: Date, errors: unknown[] | null): Promise<MessageRow | undefined> {
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
    .where(eq(message.id, id))
    .returning();
  return row;
}

/** Watermark statuses (Messenger): every outbound message of the conversation up to `upTo` below the rank. */
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
    .where(and(eq(message.conversationId, conversationId), eq(message.direction, 'outbound'), lte(message.occurredAt, upTo), lt(message.statusRank, rank)))
    .returning();
}

export async function findConversation(db: Db, channelAccountId: number, externalChatId: string): Promise<ConversationRow | undefined> {
  const [row] = await db.select().from(conversation).where(and(eq(conversation.entityChannelAccountId, channelAccountId), eq(conversation.externalChatId, externalChatId)));
  return row;
}
