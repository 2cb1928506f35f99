/** The only reader and writer of `api_key` and `api_key_policy` (issue 53). */
import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKey, apiKeyPolicy } from './api-key.table.js';

export type ApiKeyRow = typeof apiKey.$inferSelect;

export async function insertApiKey(
  db: Db,
  values: { entityId: number; name: string; prefix: string; secretHash: string; codes: string[]; createdByUserId: number; expiresAt: Date | null },
): Promise<ApiKeyRow> {
  const [row] = await db.insert(apiKey).values(values).returning();
  return row!;
}

/** The entity's keys, newest first (revoked ones too: they stay listed as revoked). */
export async function listApiKeys(db: Db, entityId: number): Promise<ApiKeyRow[]> {
  return db.select().from(apiKey).where(eq(apiKey.entityId, entityId)).orderBy(desc(apiKey.id));
}

export async function findApiKey(db: Db, entityId: number, id: number): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(apiKey)
    .where(and(eq(apiKey.entityId, entityId), eq(apiKey.id, id)));
  return row;
}

/** The key whose secret hashes to `secretHash`, whatever its entity (authentication; one index lookup). */
export async function findBySecretHash(db: Db, secretHash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db.select().from(apiKey).where(eq(apiKey.secretHash, secretHash));
  return row;
}

/** Revokes the key (idempotent: a revoked key keeps its first revocation time); undefined when not the entity's. */
export async function revokeApiKey(db: Db, entityId: number, id: number, at: Date): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .update(apiKey)
    .set({ revokedAt: sql`coalesce(${apiKey.revokedAt}, ${at.toISOString()}::timestamptz)`, updatedAt: at })
    .where(and(eq(apiKey.entityId, entityId), eq(apiKey.id, id)))
    .returning();
  return row;
}

/** Sets `last_used_at` unless it was set less than `minIntervalMs` ago (one write per key per interval at most). */
export async function touchApiKey(db: Db, id: number, at: Date, minIntervalMs: number): Promise<void> {
  const before = new Date(at.getTime() - minIntervalMs);
  await db
    .update(apiKey)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKey.id, id), or(isNull(apiKey.lastUsedAt), lt(apiKey.lastUsedAt, before))));
}

export async function findPolicy(db: Db, entityId: number): Promise<{ allowNonExpiring: boolean }> {
  const [row] = await db.select({ allowNonExpiring: apiKeyPolicy.allowNonExpiring }).from(apiKeyPolicy).where(eq(apiKeyPolicy.entityId, entityId));
  return row ?? { allowNonExpiring: false };
}

export async function upsertPolicy(db: Db, entityId: number, allowNonExpiring: boolean): Promise<void> {
  await db
    .insert(apiKeyPolicy)
    .values({ entityId, allowNonExpiring })
    .onConflictDoUpdate({ target: apiKeyPolicy.entityId, set: { allowNonExpiring, updatedAt: new Date() } });
}
