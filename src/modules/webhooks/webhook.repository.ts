/** The only reader and writer of `webhook_endpoint`, `webhook_delivery` and `webhook_attempt` (issue 53). */
import { and, arrayContains, asc, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { webhookAttempt, webhookDelivery, webhookEndpoint } from './webhook.table.js';

export type EndpointRow = typeof webhookEndpoint.$inferSelect;
export type DeliveryRow = typeof webhookDelivery.$inferSelect;
export type AttemptRow = typeof webhookAttempt.$inferSelect;

export async function insertEndpoint(db: Db, values: { entityId: number; url: string; description: string | null; eventTypes: string[]; secret: string }) {
  const [row] = await db.insert(webhookEndpoint).values(values).returning();
  return row!;
}

export async function listEndpoints(db: Db, entityId: number): Promise<EndpointRow[]> {
  return db.select().from(webhookEndpoint).where(eq(webhookEndpoint.entityId, entityId)).orderBy(asc(webhookEndpoint.id));
}

export async function findEndpoint(db: Db, entityId: number, id: number): Promise<EndpointRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoint)
    .where(and(eq(webhookEndpoint.entityId, entityId), eq(webhookEndpoint.id, id)));
  return row;
}

export async function updateEndpoint(db: Db, entityId: number, id: number, values: Partial<Omit<EndpointRow, 'id' | 'entityId' | 'createdAt'>>) {
  const [row] = await db
    .update(webhookEndpoint)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(webhookEndpoint.entityId, entityId), eq(webhookEndpoint.id, id)))
    .returning();
  return row;
}

export async function deleteEndpoint(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoint)
    .where(and(eq(webhookEndpoint.entityId, entityId), eq(webhookEndpoint.id, id)))
    .returning({ id: webhookEndpoint.id });
  return rows.length > 0;
}

/** The enabled endpoints of `entityId` subscribed to `eventType`. */
export async function subscribedEndpoints(db: Db, entityId: number, eventType: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoint)
    .where(and(eq(webhookEndpoint.entityId, entityId), eq(webhookEndpoint.enabled, true), arrayContains(webhookEndpoint.eventTypes, [eventType])));
}

/** Which of `entityIds` have an enabled endpoint subscribed to `eventType` (one statement). */
export async function entitiesListening(db: Db, entityIds: number[], eventType: string): Promise<Set<number>> {
  if (entityIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ entityId: webhookEndpoint.entityId })
    .from(webhookEndpoint)
    .where(and(inArray(webhookEndpoint.entityId, entityIds), eq(webhookEndpoint.enabled, true), arrayContains(webhookEndpoint.eventTypes, [eventType])));
  return new Set(rows.map((r) => r.entityId));
}

/** Writes deliveries, skipping ids already written (a fan-out run twice); returns the ids written now. */
export async function insertDeliveries(
  db: Db,
  rows: { id: string; entityId: number; endpointId: number; eventType: string; payload: unknown; nextAttemptAt: Date }[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const written = await db.insert(webhookDelivery).values(rows).onConflictDoNothing().returning({ id: webhookDelivery.id });
  return written.map((r) => r.id);
}

export async function findDelivery(db: Db, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDelivery).where(eq(webhookDelivery.id, id));
  return row;
}

export async function findEndpointById(db: Db, id: number): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoint).where(eq(webhookEndpoint.id, id));
  return row;
}

export async function updateDelivery(db: Db, id: string, values: Partial<Omit<DeliveryRow, 'id'>>): Promise<void> {
  await db.update(webhookDelivery).set(values).where(eq(webhookDelivery.id, id));
}

export async function insertAttempt(db: Db, values: Omit<AttemptRow, 'id' | 'attemptedAt'>): Promise<void> {
  await db.insert(webhookAttempt).values(values);
}

/** The endpoint's deliveries, newest first, before `before` (a creation time) when given. */
export async function listDeliveries(db: Db, entityId: number, endpointId: number, limit: number, before?: Date): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDelivery)
    .where(and(eq(webhookDelivery.entityId, entityId), eq(webhookDelivery.endpointId, endpointId), before ? lt(webhookDelivery.createdAt, before) : undefined))
    .orderBy(desc(webhookDelivery.createdAt), desc(webhookDelivery.id))
    .limit(limit);
}

export async function attemptsOf(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db.select().from(webhookAttempt).where(inArray(webhookAttempt.deliveryId, deliveryIds)).orderBy(asc(webhookAttempt.id));
}

/** Puts deliveries of the endpoint back to pending from now (a replay); returns their ids. */
export async function rearmDeliveries(
  db: Db,
  entityId: number,
  endpointId: number,
  filter: { id: string } | { since: Date },
  limit: number,
): Promise<string[]> {
  const now = new Date();
  const which =
    'id' in filter
      ? eq(webhookDelivery.id, filter.id)
      : inArray(
          webhookDelivery.id,
          db
            .select({ id: webhookDelivery.id })
            .from(webhookDelivery)
            .where(and(eq(webhookDelivery.entityId, entityId), eq(webhookDelivery.endpointId, endpointId), gte(webhookDelivery.createdAt, filter.since)))
            .limit(limit),
        );
  const rows = await db
    .update(webhookDelivery)
    .set({ status: 'pending', nextAttemptAt: now, retryFrom: now })
    .where(and(eq(webhookDelivery.entityId, entityId), eq(webhookDelivery.endpointId, endpointId), which))
    .returning({ id: webhookDelivery.id });
  return rows.map((r) => r.id);
}

/** Gives up the endpoint's pending deliveries (it was disabled or its deliveries can no longer be sent). */
export async function failPending(db: Db, endpointId: number, reason: string): Promise<void> {
  await db
    .update(webhookDelivery)
    .set({ status: 'failed', nextAttemptAt: null, lastError: reason })
    .where(and(eq(webhookDelivery.endpointId, endpointId), eq(webhookDelivery.status, 'pending')));
}

/** Stamps the first failure of a run of failures (kept while it lasts); returns the endpoint as it is then. */
export async function markFailing(db: Db, endpointId: number, at: Date): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoint)
    .set({ failingSince: sql`coalesce(${webhookEndpoint.failingSince}, ${at.toISOString()}::timestamptz)` })
    .where(eq(webhookEndpoint.id, endpointId))
    .returning();
  return row;
}

export async function clearFailing(db: Db, endpointId: number): Promise<void> {
  await db
    .update(webhookEndpoint)
    .set({ failingSince: null })
    .where(and(eq(webhookEndpoint.id, endpointId), sql`${webhookEndpoint.failingSince} is not null`));
}
