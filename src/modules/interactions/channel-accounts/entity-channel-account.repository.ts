/** Drizzle queries of the entity's channel accounts: the administration API and the resolution of inbound events' receiving accounts. */
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import type { PageRequest } from '../../../platform/http/pagination.js';
import { entityChannelAccount } from '../model/index.js';
import { PLATFORM_CODES, type ChannelTypeCode, type Platform } from '../model/index.js';

export type EntityChannelAccountRow = typeof entityChannelAccount.$inferSelect;

/** An active receiving account as inbound intake needs it. */
export interface ChannelAccountRef {
  id: number;
  entityId: number;
  channelTypeCode: ChannelTypeCode;
}

/**
 * `(platform, code)` rows of `PLATFORM_CODES` as SQL `values` text, for statements that match an event's
 * platform to its account's channel type. Constant text from our own enumeration, so statements using it
 * stay prepared once.
 */
export const PLATFORM_CODE_VALUES = Object.entries(PLATFORM_CODES)
  .flatMap(([platform, codes]) => codes.map((code) => `('${platform}', '${code}')`))
  .join(', ');

export async function listAccounts(db: Db, entityId: number, f: PageRequest & { channelTypeCode?: ChannelTypeCode | undefined }) {
  const where = and(eq(entityChannelAccount.entityId, entityId), f.channelTypeCode ? eq(entityChannelAccount.channelTypeCode, f.channelTypeCode) : undefined);
  const [rows, totals] = await Promise.all([
    db.select().from(entityChannelAccount).where(where).orderBy(asc(entityChannelAccount.id)).limit(f.limit).offset(f.offset),
    db.select({ n: count() }).from(entityChannelAccount).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findAccount(db: Db, entityId: number, id: number) {
  const rows = await db
    .select()
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.entityId, entityId), eq(entityChannelAccount.id, id)));
  return rows[0];
}

/** Any entity's account with this platform id (ids are globally unique per platform). */
/** The ids among `ids` that are channel accounts of `entityId`. */
export async function existingAccountIds(db: Db, entityId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: entityChannelAccount.id })
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.entityId, entityId), inArray(entityChannelAccount.id, ids)));
  return rows.map((r) => r.id);
}

export async function findAccountByExternalId(db: Db, channelTypeCode: ChannelTypeCode, externalAccountId: string) {
  const rows = await db
    .select({ id: entityChannelAccount.id })
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.channelTypeCode, channelTypeCode), eq(entityChannelAccount.externalAccountId, externalAccountId)));
  return rows[0];
}

type NewAccount = Pick<EntityChannelAccountRow, 'channelTypeCode' | 'externalAccountId' | 'displayName' | 'phoneNumber'> & { isActive?: boolean };

export async function insertAccount(db: Db, entityId: number, values: NewAccount) {
  const rows = await db
    .insert(entityChannelAccount)
    .values({ ...values, entityId })
    .returning();
  return rows[0]!;
}

/** Inserts the account unless its platform id is registered already (demo data); returns the stored account. */
export async function insertAccountIfAbsent(db: Db, entityId: number, values: NewAccount): Promise<EntityChannelAccountRow> {
  await db
    .insert(entityChannelAccount)
    .values({ ...values, entityId })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.channelTypeCode, values.channelTypeCode), eq(entityChannelAccount.externalAccountId, values.externalAccountId)));
  return row!;
}

export async function updateAccount(
  db: Db,
  entityId: number,
  id: number,
  values: Partial<Pick<EntityChannelAccountRow, 'displayName' | 'phoneNumber' | 'isActive'>>,
) {
  const rows = await db
    .update(entityChannelAccount)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(entityChannelAccount.entityId, entityId), eq(entityChannelAccount.id, id)))
    .returning();
  return rows[0];
}

/** The active account of `platform` with this platform id, whichever entity owns it. */
async function findActiveAccount(db: Db, platform: Platform, externalAccountId: string): Promise<ChannelAccountRef | undefined> {
  const [row] = await db
    .select({ id: entityChannelAccount.id, entityId: entityChannelAccount.entityId, channelTypeCode: entityChannelAccount.channelTypeCode })
    .from(entityChannelAccount)
    .where(
      and(
        eq(entityChannelAccount.externalAccountId, externalAccountId),
        inArray(entityChannelAccount.channelTypeCode, [...PLATFORM_CODES[platform]]),
        eq(entityChannelAccount.isActive, true),
      ),
    )
    .orderBy(asc(entityChannelAccount.id))
    .limit(1);
  return row;
}

/**
 * Registers the receiving account of an event whose entity was found through the communications config
 * (first event of a new number or page), or finds it when another worker registered it meanwhile. Throws
 * when the account exists but is inactive: its events wait for an operator.
 */
export async function registerAccount(db: Db, entityId: number, platform: Platform, externalAccountId: string): Promise<ChannelAccountRef> {
  await db
    .insert(entityChannelAccount)
    .values({ entityId, channelTypeCode: PLATFORM_CODES[platform][0], externalAccountId, displayName: `${platform} ${externalAccountId}` })
    .onConflictDoNothing();
  const found = await findActiveAccount(db, platform, externalAccountId);
  if (!found) throw new Error(`Channel account ${externalAccountId} could not be registered`);
  return found;
}
