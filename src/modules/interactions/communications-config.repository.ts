/** Drizzle queries of the per-entity communications configuration. */
import { eq, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { interactionCommunicationsConfig as config } from './communications-config.table.js';

/** The entity whose communications config names `externalAppId` or `communicationsEntityId` (undefined when none or both null). */
export async function findEntityByCommunicationsConfig(db: Db, externalAppId: string | null, communicationsEntityId: string | null): Promise<number | undefined> {
  const conditions = [
    externalAppId !== null ? eq(config.externalAppId, externalAppId) : undefined,
    communicationsEntityId !== null ? eq(config.communicationsEntityId, communicationsEntityId) : undefined,
  ].filter((c) => c !== undefined);
  if (conditions.length === 0) return undefined;
  const [row] = await db.select({ entityId: config.entityId }).from(config).where(or(...conditions)).limit(1);
  return row?.entityId;
}
