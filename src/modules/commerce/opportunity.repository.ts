/** All I/O of the pipeline, opportunities and their state changes. */
import { and, asc, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { commerceOpportunity, commerceOpportunityStateChange, commercePipelineState } from './commerce.table.js';

export type StateRow = typeof commercePipelineState.$inferSelect;
export type OpportunityRow = typeof commerceOpportunity.$inferSelect;
export type StateChangeRow = typeof commerceOpportunityStateChange.$inferSelect;

/** The entity's states in pipeline order (archived ones too when `all`). */
export async function states(db: Db, entityId: number, all = false): Promise<StateRow[]> {
  return db
    .select()
    .from(commercePipelineState)
    .where(and(eq(commercePipelineState.entityId, entityId), all ? undefined : eq(commercePipelineState.archived, false)))
    .orderBy(asc(commercePipelineState.position), asc(commercePipelineState.id));
}

export async function insertState(db: Db, values: typeof commercePipelineState.$inferInsert): Promise<void> {
  await db.insert(commercePipelineState).values(values);
}

export async function updateState(
  db: Db,
  entityId: number,
  id: number,
  values: Partial<Pick<StateRow, 'name' | 'position' | 'outcome' | 'archived'>>,
): Promise<void> {
  await db
    .update(commercePipelineState)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(commercePipelineState.entityId, entityId), eq(commercePipelineState.id, id)));
}

export async function insertOpportunity(db: Db, values: typeof commerceOpportunity.$inferInsert): Promise<OpportunityRow> {
  const [row] = await db.insert(commerceOpportunity).values(values).returning();
  return row!;
}

export async function findOpportunity(db: Db, entityId: number, id: number, lock = false): Promise<OpportunityRow | undefined> {
  const q = db
    .select()
    .from(commerceOpportunity)
    .where(and(eq(commerceOpportunity.entityId, entityId), eq(commerceOpportunity.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

export async function listOpportunities(
  db: Db,
  entityId: number,
  q: { limit: number; offset: number; leadId?: number | undefined; stateId?: number | undefined },
): Promise<{ rows: OpportunityRow[]; total: number }> {
  const where = and(
    eq(commerceOpportunity.entityId, entityId),
    q.leadId === undefined ? undefined : eq(commerceOpportunity.leadId, q.leadId),
    q.stateId === undefined ? undefined : eq(commerceOpportunity.stateId, q.stateId),
  );
  const rows = await db.select().from(commerceOpportunity).where(where).orderBy(desc(commerceOpportunity.id)).limit(q.limit).offset(q.offset);
  const [total] = await db.select({ n: count() }).from(commerceOpportunity).where(where);
  return { rows, total: total?.n ?? 0 };
}

export async function setState(db: Db, id: number, stateId: number): Promise<void> {
  await db.update(commerceOpportunity).set({ stateId, updatedAt: new Date() }).where(eq(commerceOpportunity.id, id));
}

export async function recordChange(db: Db, values: typeof commerceOpportunityStateChange.$inferInsert): Promise<void> {
  await db.insert(commerceOpportunityStateChange).values(values);
}

export async function history(db: Db, opportunityId: number): Promise<StateChangeRow[]> {
  return db
    .select()
    .from(commerceOpportunityStateChange)
    .where(eq(commerceOpportunityStateChange.opportunityId, opportunityId))
    .orderBy(asc(commerceOpportunityStateChange.id));
}
