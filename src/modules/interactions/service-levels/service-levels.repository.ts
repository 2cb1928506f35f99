/** Drizzle queries of service levels: business hours, SLA policies, the conversations' SLA state and breaches. Every read is scoped by entity. */
import { and, asc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { businessHours, conversation, conversationSlaBreach, routingQueue, slaPolicy, type SlaMetric, type SlaState } from '../model/index.js';

export type BusinessHoursRow = typeof businessHours.$inferSelect;
export type SlaPolicyRow = typeof slaPolicy.$inferSelect;
export type SlaConversationRow = typeof conversation.$inferSelect;

export const listBusinessHours = (db: Db, entityId: number) =>
  db.select().from(businessHours).where(eq(businessHours.entityId, entityId)).orderBy(asc(businessHours.id));

/** The hours of `queueId` when it has its own, else the entity's; undefined when neither exists. */
export async function scheduleRowFor(db: Db, entityId: number, queueId: number | null): Promise<BusinessHoursRow | undefined> {
  const rows = await db
    .select()
    .from(businessHours)
    .where(
      and(
        eq(businessHours.entityId, entityId),
        queueId === null ? isNull(businessHours.routingQueueId) : or(isNull(businessHours.routingQueueId), eq(businessHours.routingQueueId, queueId)),
      ),
    )
    .orderBy(sql`${businessHours.routingQueueId} is null`);
  return rows[0];
}

export async function insertBusinessHours(db: Db, values: typeof businessHours.$inferInsert): Promise<BusinessHoursRow> {
  const [row] = await db.insert(businessHours).values(values).returning();
  return row!;
}

export async function updateBusinessHours(
  db: Db,
  entityId: number,
  id: number,
  set: Partial<typeof businessHours.$inferInsert>,
): Promise<BusinessHoursRow | undefined> {
  const [row] = await db
    .update(businessHours)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(businessHours.entityId, entityId), eq(businessHours.id, id)))
    .returning();
  return row;
}

export async function deleteBusinessHours(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(businessHours)
    .where(and(eq(businessHours.entityId, entityId), eq(businessHours.id, id)))
    .returning({ id: businessHours.id });
  return rows.length > 0;
}

/** Whether routing queue `queueId` belongs to `entityId`. */
export async function queueExists(db: Db, entityId: number, queueId: number): Promise<boolean> {
  const rows = await db
    .select({ id: routingQueue.id })
    .from(routingQueue)
    .where(and(eq(routingQueue.entityId, entityId), eq(routingQueue.id, queueId)));
  return rows.length > 0;
}

export const listPolicies = (db: Db, entityId: number) =>
  db.select().from(slaPolicy).where(eq(slaPolicy.entityId, entityId)).orderBy(asc(slaPolicy.position), asc(slaPolicy.id));

export async function findPolicy(db: Db, entityId: number, id: number): Promise<SlaPolicyRow | undefined> {
  const [row] = await db
    .select()
    .from(slaPolicy)
    .where(and(eq(slaPolicy.entityId, entityId), eq(slaPolicy.id, id)));
  return row;
}

export async function insertPolicy(db: Db, values: typeof slaPolicy.$inferInsert): Promise<SlaPolicyRow> {
  const [row] = await db.insert(slaPolicy).values(values).returning();
  return row!;
}

export async function updatePolicy(db: Db, entityId: number, id: number, set: Partial<typeof slaPolicy.$inferInsert>): Promise<SlaPolicyRow | undefined> {
  const [row] = await db
    .update(slaPolicy)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(slaPolicy.entityId, entityId), eq(slaPolicy.id, id)))
    .returning();
  return row;
}

export async function deletePolicy(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(slaPolicy)
    .where(and(eq(slaPolicy.entityId, entityId), eq(slaPolicy.id, id)))
    .returning({ id: slaPolicy.id });
  return rows.length > 0;
}

/**
 * The active policy that covers a conversation, first match in this order (docs/api/interactions.md "SLA
 * policies"): one naming its lead, its routing queue, its channel type, then a default (naming none); within
 * a rank the lowest `position`, then the oldest.
 */
export async function policyFor(
  db: Db,
  c: { entityId: number; leadId: number; queueId: number | null; channelTypeCode: string },
): Promise<SlaPolicyRow | undefined> {
  const isDefault = and(isNull(slaPolicy.leadId), isNull(slaPolicy.routingQueueId), isNull(slaPolicy.channelTypeCode));
  const matches: (SQL | undefined)[] = [eq(slaPolicy.leadId, c.leadId), sql`${slaPolicy.channelTypeCode} = ${c.channelTypeCode}`, isDefault];
  if (c.queueId !== null) matches.push(eq(slaPolicy.routingQueueId, c.queueId));
  const rank = sql`case when ${slaPolicy.leadId} is not null then 0 when ${slaPolicy.routingQueueId} is not null then 1 when ${slaPolicy.channelTypeCode} is not null then 2 else 3 end`;
  const [row] = await db
    .select()
    .from(slaPolicy)
    .where(and(eq(slaPolicy.entityId, c.entityId), eq(slaPolicy.isActive, true), or(...matches)))
    .orderBy(rank, asc(slaPolicy.position), asc(slaPolicy.id))
    .limit(1);
  return row;
}

/** Whether the entity has an active policy (a cheap check before choosing one). */
export async function hasActivePolicy(db: Db, entityId: number): Promise<boolean> {
  const rows = await db
    .select({ id: slaPolicy.id })
    .from(slaPolicy)
    .where(and(eq(slaPolicy.entityId, entityId), eq(slaPolicy.isActive, true)))
    .limit(1);
  return rows.length > 0;
}

/** Conversation `id` locked for its SLA state (any entity: timers carry the id only). */
export async function lockConversation(db: Db, id: number): Promise<SlaConversationRow | undefined> {
  const [row] = await db.select().from(conversation).where(eq(conversation.id, id)).for('update');
  return row;
}

/** Writes the SLA state of conversation `id` and answers the row. */
export async function setSlaState(db: Db, id: number, state: SlaState | null): Promise<SlaConversationRow> {
  const [row] = await db.update(conversation).set({ slaState: state }).where(eq(conversation.id, id)).returning();
  return row!;
}

/** Records a breach; false when this conversation, metric and cycle already has one. */
export async function insertBreach(
  db: Db,
  b: { entityId: number; conversationId: number; metric: SlaMetric; cycle: number; policyId: number; dueAt: Date; breachedAt: Date },
): Promise<boolean> {
  const rows = await db.insert(conversationSlaBreach).values(b).onConflictDoNothing().returning({ id: conversationSlaBreach.id });
  return rows.length > 0;
}
