import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { PageRequest } from '../../platform/http/pagination.js';
import { entityChannelAccount } from './entity-channel-account.table.js';

export type EntityChannelAccountRow = typeof entityChannelAccount.$inferSelect;
type ChannelTypeCode = EntityChannelAccountRow['channelTypeCode'];

export async function listAccounts(db: Db, entityId: number, f: PageRequest & { channelTypeCode?: ChannelTypeCode | undefined }) {
  const where = and(eq(entityChannelAccount.entityId, entityId), f.channelTypeCode ? eq(entityChannelAccount.channelTypeCode, f.channelTypeCode) : undefined);
  const [rows, totals] = await Promise.all([
    db.select().from(entityChannelAccount).where(where).orderBy(asc(entityChannelAccount.id)).limit(f.limit).offset(f.offset),
    db.select({ n: count() }).from(entityChannelAccount).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findAccount(db: Db, entityId: number, id: number) {
  const rows = await db.select().from(entityChannelAccount).where(and(eq(entityChannelAccount.entityId, entityId), eq(entityChannelAccount.id, id)));
  return rows[0];
}

/** Any entity's account with this platform id (ids are globally unique per platform). */
export async function findAccountByExternalId(db: Db, channelTypeCode: ChannelTypeCode, externalAccountId: string) {
  const rows = await db
    .select({ id: entityChannelAccount.id })
    .from(entityChannelAccount)
    .where(and(eq(entityChannelAccount.channelTypeCode, channelTypeCode), eq(entityChannelAccount.externalAccountId, externalAccountId)));
  return rows[0];
}

export async function insertAccount(
  db: Db,
  entityId: number,
  values: Pick<EntityChannelAccountRow, 'channelTypeCode' | 'externalAccountId' | 'displayName' | 'phoneNumber'> & { isActive?: boolean },
) {
  const rows = await db.insert(entityChannelAccount).values({ ...values, entityId }).returning();
  return rows[0]!;
}

export async function updateAccount(db: Db, entityId: number, id: number, values: Partial<Pick<EntityChannelAccountRow, 'displayName' | 'phoneNumber' | 'isActive'>>) {
  const rows = await db
    .update(entityChannelAccount)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(entityChannelAccount.entityId, entityId), eq(entityChannelAccount.id, id)))
    .returning();
  return rows[0];
}
