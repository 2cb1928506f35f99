import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { erpSession } from './erp-session.table.js';

export interface ErpSessionScope {
  userId: number;
  entityId: number;
  clientKind: string;
}

const inScope = (scope: ErpSessionScope) =>
  and(eq(erpSession.entityId, scope.entityId), eq(erpSession.userId, scope.userId), eq(erpSession.clientKind, scope.clientKind));

/** The sealed record of the scope, if any. */
export async function findSealed(db: Db, scope: ErpSessionScope): Promise<string | undefined> {
  const [row] = await db.select({ sealed: erpSession.sealed }).from(erpSession).where(inScope(scope)).limit(1);
  return row?.sealed;
}

/** Inserts or replaces the sealed record of the scope. */
export async function saveSealed(db: Db, scope: ErpSessionScope, sealed: string): Promise<void> {
  await db
    .insert(erpSession)
    .values({ ...scope, sealed })
    .onConflictDoUpdate({ target: [erpSession.userId, erpSession.entityId, erpSession.clientKind], set: { sealed, updatedAt: sql`now()` } });
}

export async function deleteSealed(db: Db, scope: ErpSessionScope): Promise<void> {
  await db.delete(erpSession).where(inScope(scope));
}

/** Scopes holding a session in `entityId`, most recently stored first (at most `limit`). */
export async function scopesOfEntity(db: Db, entityId: number, limit: number): Promise<ErpSessionScope[]> {
  return db
    .select({ userId: erpSession.userId, entityId: erpSession.entityId, clientKind: erpSession.clientKind })
    .from(erpSession)
    .where(eq(erpSession.entityId, entityId))
    .orderBy(desc(erpSession.updatedAt))
    .limit(limit);
}
