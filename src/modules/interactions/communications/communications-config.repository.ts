/** Drizzle queries of the per-entity communications configuration. */
import { eq, or } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { interactionCommunicationsConfig as config } from '../model/index.js';

/** The entity whose communications config names `externalAppId` or `communicationsEntityId` (undefined when none or both null). */
export async function findEntityByCommunicationsConfig(
  db: Db,
  externalAppId: string | null,
  communicationsEntityId: string | null,
): Promise<number | undefined> {
  const conditions = [
    externalAppId !== null ? eq(config.externalAppId, externalAppId) : undefined,
    communicationsEntityId !== null ? eq(config.communicationsEntityId, communicationsEntityId) : undefined,
  ].filter((c) => c !== undefined);
  if (conditions.length === 0) return undefined;
  const [row] = await db
    .select({ entityId: config.entityId })
    .from(config)
    .where(or(...conditions))
    .limit(1);
  return row?.entityId;
}

export type CommunicationsConfigRow = typeof config.$inferSelect;

/** The entity's communications config row, if any. */
export async function findConfig(db: Db, entityId: number): Promise<CommunicationsConfigRow | undefined> {
  const [row] = await db.select().from(config).where(eq(config.entityId, entityId)).limit(1);
  return row;
}

/** Inserts or updates the entity's row with `values` (columns left out keep their value). */
export async function upsertConfig(
  db: Db,
  entityId: number,
  values: Partial<Pick<CommunicationsConfigRow, 'communicationsEntityId' | 'externalAppId' | 'baseUrl' | 'apiKeyEncrypted' | 'metaAccessTokenEncrypted'>>,
): Promise<CommunicationsConfigRow> {
  const [row] = await db
    .insert(config)
    .values({ entityId, ...values })
    .onConflictDoUpdate({ target: config.entityId, set: { ...values, updatedAt: new Date() } })
    .returning();
  return row!;
}

/** Entities with a communications config row (boot re-sync). */
export async function configuredEntityIds(db: Db): Promise<number[]> {
  return (await db.select({ entityId: config.entityId }).from(config)).map((r) => r.entityId);
}
