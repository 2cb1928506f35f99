/**
 * Queries of the website chat (issue 32): web accounts by website token, their settings, visitors and
 * their token generation, and the visitor's own conversation and messages. Every read a visitor causes is
 * scoped by entity, account and chat id together: a visitor reaches nothing but its own conversation.
 */
import { and, desc, eq, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../../../../db/client.js';
import { conversation, entityChannelAccount, message, webChannelSettings, webVisitor } from '../../../model/index.js';
import type { MessageRow } from '../../../conversations/index.js';

export type WebSettingsRow = typeof webChannelSettings.$inferSelect;
export type WebVisitorRow = typeof webVisitor.$inferSelect;
export interface WebAccountRow {
  id: number;
  entityId: number;
  websiteToken: string;
  displayName: string;
  isActive: boolean;
}

const accountColumns = {
  id: entityChannelAccount.id,
  entityId: entityChannelAccount.entityId,
  websiteToken: entityChannelAccount.externalAccountId,
  displayName: entityChannelAccount.displayName,
  isActive: entityChannelAccount.isActive,
};

/** The active web account whose website token is `token`. */
export async function findAccountByToken(db: Db, token: string): Promise<WebAccountRow | undefined> {
  const [row] = await db
    .select(accountColumns)
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.channelTypeCode, 'web'), eq(entityChannelAccount.externalAccountId, token), eq(entityChannelAccount.isActive, true)));
  return row;
}

/** Web account `id` of entity `entityId` (any state). */
export async function findAccount(db: Db, entityId: number, id: number): Promise<WebAccountRow | undefined> {
  const [row] = await db
    .select(accountColumns)
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.entityId, entityId), eq(entityChannelAccount.id, id), eq(entityChannelAccount.channelTypeCode, 'web')));
  return row;
}

export async function findSettings(db: Db, entityId: number, accountId: number): Promise<WebSettingsRow | undefined> {
  const [row] = await db
    .select()
    .from(webChannelSettings)
    .where(and(eq(webChannelSettings.entityId, entityId), eq(webChannelSettings.entityChannelAccountId, accountId)));
  return row;
}

/** Writes the settings of account `accountId` (inserted with `defaults` the first time). */
export async function upsertSettings(
  db: Db,
  entityId: number,
  accountId: number,
  defaults: Pick<WebSettingsRow, 'prechatFields' | 'appearance'>,
  values: Partial<Omit<WebSettingsRow, 'id' | 'entityId' | 'entityChannelAccountId' | 'createdAt' | 'updatedAt'>>,
): Promise<WebSettingsRow> {
  const [row] = await db
    .insert(webChannelSettings)
    .values({ entityId, entityChannelAccountId: accountId, ...defaults, ...values })
    .onConflictDoUpdate({ target: webChannelSettings.entityChannelAccountId, set: { ...values, updatedAt: sql`now()` } })
    .returning();
  return row!;
}

/** Inserts a new visitor (generation 1). */
export async function insertVisitor(
  db: Db,
  values: Pick<WebVisitorRow, 'entityId' | 'entityChannelAccountId' | 'externalChatId' | 'name' | 'email' | 'phone'>,
): Promise<WebVisitorRow> {
  const [row] = await db.insert(webVisitor).values(values).returning();
  return row!;
}

/**
 * The verified visitor `identifier` of the account, created or found (one statement). Its token generation
 * stays: each device signs in on its own, and their tokens coexist.
 */
export async function upsertVerifiedVisitor(
  db: Db,
  values: Pick<WebVisitorRow, 'entityId' | 'entityChannelAccountId' | 'externalChatId' | 'identifier' | 'name' | 'email' | 'phone'>,
): Promise<WebVisitorRow> {
  const [row] = await db
    .insert(webVisitor)
    .values(values)
    .onConflictDoUpdate({
      target: [webVisitor.entityChannelAccountId, webVisitor.externalChatId],
      set: { lastSeenAt: sql`now()` },
    })
    .returning();
  return row!;
}

/** Visitor `id` of account `accountId` and entity `entityId` with chat id `chat`. */
export async function findVisitor(db: Db, entityId: number, accountId: number, id: number, chat: string): Promise<WebVisitorRow | undefined> {
  const [row] = await db
    .select()
    .from(webVisitor)
    .where(
      and(eq(webVisitor.entityId, entityId), eq(webVisitor.entityChannelAccountId, accountId), eq(webVisitor.id, id), eq(webVisitor.externalChatId, chat)),
    );
  return row;
}

/** Moves the visitor to its next token generation when it is at `generation` (a resume); undefined when another resume came first. */
export async function rotateVisitor(db: Db, visitor: WebVisitorRow, generation: number): Promise<WebVisitorRow | undefined> {
  const [row] = await db
    .update(webVisitor)
    .set({ tokenGeneration: sql`${webVisitor.tokenGeneration} + 1`, lastSeenAt: sql`now()` })
    .where(and(eq(webVisitor.id, visitor.id), eq(webVisitor.entityId, visitor.entityId), eq(webVisitor.tokenGeneration, generation)))
    .returning();
  return row;
}

/** The id of the conversation of chat `chat` on account `accountId`, if it is open yet. */
export async function findConversationId(db: Db, entityId: number, accountId: number, chat: string): Promise<number | undefined> {
  const [row] = await db
    .select({ id: conversation.id })
    .from(conversation)
    .where(and(eq(conversation.entityId, entityId), eq(conversation.entityChannelAccountId, accountId), eq(conversation.externalChatId, chat)));
  return row?.id;
}

/** Messages of conversation `conversationId`, newest first, before message `beforeId` when given. */
export async function visitorHistory(db: Db, entityId: number, conversationId: number, limit: number, beforeId?: number): Promise<MessageRow[]> {
  let before;
  if (beforeId !== undefined) {
    const [b] = await db
      .select({ ms: message.occurredAtMs, id: message.id })
      .from(message)
      .where(and(eq(message.entityId, entityId), eq(message.conversationId, conversationId), eq(message.id, beforeId)));
    if (!b) return [];
    before = or(lt(message.occurredAtMs, b.ms), and(eq(message.occurredAtMs, b.ms), lt(message.id, b.id)));
  }
  return db
    .select()
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.conversationId, conversationId), before))
    .orderBy(desc(message.occurredAtMs), desc(message.id))
    .limit(limit);
}

/** Message `id` of conversation `conversationId`. */
export async function findMessage(db: Db, entityId: number, conversationId: number, id: number): Promise<MessageRow | undefined> {
  const [row] = await db
    .select()
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.conversationId, conversationId), eq(message.id, id)));
  return row;
}
