/** Drizzle queries of routing: queues, members, filters, the round-robin cursor and open-conversation counts. */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { runShapedIn } from '../../../db/statement.js';
import { CANDIDATES, ROUTING_SETUP, type CandidatesShape } from './routing.sql.js';
import { routingFilter, routingQueue, routingQueueMember, routingRrCursor } from '../model/index.js';
import { conversation } from '../model/index.js';
import type { ConversationRow } from '../conversations/index.js';

export type QueueRow = typeof routingQueue.$inferSelect;
export type MemberRow = typeof routingQueueMember.$inferSelect;
export type FilterRow = typeof routingFilter.$inferSelect;

export interface Candidate {
  member_id: number;
  employee_id: number;
  position: number;
  is_available: boolean;
  capacity: number;
  open_count: number;
}

/** Members of `queueId` in round-robin order with their capacity and current open (assigned) conversations. */
export async function candidates(db: Db, entityId: number, queueId: number): Promise<Candidate[]> {
  return runShapedIn<Candidate, CandidatesShape>(db, CANDIDATES, 'queue', { entityId, queueId });
}

/** Memberships of `employeeId` (any queue of the entity), locked so capacity checks of one agent are serialized. */
export async function lockMemberships(db: Db, entityId: number, employeeId: number): Promise<Candidate[]> {
  await db
    .select({ id: routingQueueMember.id })
    .from(routingQueueMember)
    .where(and(eq(routingQueueMember.entityId, entityId), eq(routingQueueMember.employeeId, employeeId)))
    .for('update');
  return runShapedIn<Candidate, CandidatesShape>(db, CANDIDATES, 'employee', { entityId, employeeId });
}

/** Locks (creating if needed) the cursor of `queueId`; concurrent routers of one queue wait here. */
export async function lockCursor(db: Db, entityId: number, queueId: number): Promise<{ lastPosition: number; lastMemberId: number | null }> {
  await db.insert(routingRrCursor).values({ queueId, entityId }).onConflictDoNothing();
  const [row] = await db.select().from(routingRrCursor).where(eq(routingRrCursor.queueId, queueId)).for('update');
  return { lastPosition: row?.lastPosition ?? -1, lastMemberId: row?.lastEmployeeId ?? null };
}

export async function advanceCursor(db: Db, queueId: number, position: number, employeeId: number): Promise<void> {
  await db
    .update(routingRrCursor)
    .set({ lastPosition: position, lastEmployeeId: employeeId, updatedAt: new Date() })
    .where(eq(routingRrCursor.queueId, queueId));
}

/** Waiting conversations of a queue, oldest first, locked and skipping those another router holds. */
export async function waitingConversations(db: Db, entityId: number, queueId: number, limit: number): Promise<{ id: number }[]> {
  return db
    .select({ id: conversation.id })
    .from(conversation)
    .where(and(eq(conversation.entityId, entityId), eq(conversation.queueId, queueId), eq(conversation.assignmentStatus, 'queued')))
    .orderBy(asc(conversation.queuedAt), asc(conversation.id))
    .limit(limit)
    .for('update', { skipLocked: true });
}

export async function queuesOfEmployee(db: Db, entityId: number, employeeId: number): Promise<number[]> {
  const rows = await db
    .select({ queueId: routingQueueMember.queueId })
    .from(routingQueueMember)
    .where(and(eq(routingQueueMember.entityId, entityId), eq(routingQueueMember.employeeId, employeeId)));
  return rows.map((r) => r.queueId);
}

export interface RoutingSetup {
  hasQueues: boolean;
  filters: FilterRow[];
  defaultQueueId: number | null;
}

/** In one round trip: whether the entity routes at all, its active filters (priority order) and its default queue. */
export async function routingSetup(db: Db, entityId: number): Promise<RoutingSetup> {
  const [row] = await runShapedIn<{ has_queues: boolean; default_queue_id: number | null; filters: FilterJson[] | null }, undefined>(
    db,
    ROUTING_SETUP,
    undefined,
    { entityId },
  );
  return {
    hasQueues: row?.has_queues ?? false,
    defaultQueueId: row?.default_queue_id ?? null,
    filters: (row?.filters ?? []).map((f) => ({ id: f.id, queueId: f.queue_id, conditions: f.conditions }) as FilterRow),
  };
}

interface FilterJson {
  id: number;
  queue_id: number;
  conditions: unknown;
}

// Administration of queues, members and filters (routing.service.ts), every query scoped by entity.

export async function findQueue(db: Db, entityId: number, id: number): Promise<QueueRow | undefined> {
  const [row] = await db
    .select()
    .from(routingQueue)
    .where(and(eq(routingQueue.entityId, entityId), eq(routingQueue.id, id)));
  return row;
}

export async function listQueues(db: Db, entityId: number): Promise<QueueRow[]> {
  return db.select().from(routingQueue).where(eq(routingQueue.entityId, entityId)).orderBy(asc(routingQueue.id));
}

export async function insertQueue(db: Db, entityId: number, values: Pick<QueueRow, 'name' | 'isDefault' | 'defaultCapacity'>): Promise<QueueRow> {
  const [row] = await db
    .insert(routingQueue)
    .values({ entityId, ...values })
    .returning();
  return row!;
}

export async function updateQueue(
  db: Db,
  entityId: number,
  id: number,
  values: Partial<Pick<QueueRow, 'name' | 'isDefault' | 'defaultCapacity'>>,
): Promise<QueueRow | undefined> {
  if (Object.keys(values).length === 0) return findQueue(db, entityId, id); // an empty change reads the queue back
  const [row] = await db
    .update(routingQueue)
    .set(values)
    .where(and(eq(routingQueue.entityId, entityId), eq(routingQueue.id, id)))
    .returning();
  return row;
}

/** Makes `keepId` the entity's only default queue. */
export async function clearOtherDefaults(db: Db, entityId: number, keepId: number): Promise<void> {
  await db
    .update(routingQueue)
    .set({ isDefault: false })
    .where(and(eq(routingQueue.entityId, entityId), sql`${routingQueue.id} <> ${keepId}`));
}

/** Deletes a queue; its waiting conversations go back to unassigned first. */
export async function deleteQueue(db: Db, entityId: number, id: number): Promise<void> {
  await db
    .update(conversation)
    .set({ assignmentStatus: 'unassigned', queueId: null, queuedAt: null })
    .where(and(eq(conversation.entityId, entityId), eq(conversation.queueId, id), eq(conversation.assignmentStatus, 'queued')));
  await db.delete(routingQueue).where(and(eq(routingQueue.entityId, entityId), eq(routingQueue.id, id)));
}

export async function listMembers(db: Db, queueId: number): Promise<MemberRow[]> {
  return db
    .select()
    .from(routingQueueMember)
    .where(eq(routingQueueMember.queueId, queueId))
    .orderBy(asc(routingQueueMember.position), asc(routingQueueMember.id));
}

/** Inserts a member; undefined when the employee is in the queue already. */
export async function insertMember(
  db: Db,
  entityId: number,
  values: Pick<MemberRow, 'queueId' | 'employeeId' | 'position' | 'isAvailable' | 'capacity'>,
): Promise<MemberRow | undefined> {
  const [row] = await db
    .insert(routingQueueMember)
    .values({ entityId, ...values })
    .onConflictDoNothing()
    .returning();
  return row;
}

export async function updateMember(
  db: Db,
  queueId: number,
  memberId: number,
  values: Partial<Pick<MemberRow, 'position' | 'isAvailable' | 'capacity'>>,
): Promise<MemberRow | undefined> {
  if (Object.keys(values).length === 0) {
    const [member] = await db
      .select()
      .from(routingQueueMember)
      .where(and(eq(routingQueueMember.queueId, queueId), eq(routingQueueMember.id, memberId)));
    return member; // an empty change reads the member back
  }
  const [row] = await db
    .update(routingQueueMember)
    .set(values)
    .where(and(eq(routingQueueMember.queueId, queueId), eq(routingQueueMember.id, memberId)))
    .returning();
  return row;
}

/** True when the member existed and was removed. */
export async function deleteMember(db: Db, queueId: number, memberId: number): Promise<boolean> {
  const rows = await db
    .delete(routingQueueMember)
    .where(and(eq(routingQueueMember.queueId, queueId), eq(routingQueueMember.id, memberId)))
    .returning({ id: routingQueueMember.id });
  return rows.length > 0;
}

/** An employee's availability in every queue of the entity. */
export async function setAvailability(db: Db, entityId: number, employeeId: number, isAvailable: boolean): Promise<void> {
  await db
    .update(routingQueueMember)
    .set({ isAvailable })
    .where(and(eq(routingQueueMember.entityId, entityId), eq(routingQueueMember.employeeId, employeeId)));
}

export async function listFilters(db: Db, entityId: number): Promise<FilterRow[]> {
  return db.select().from(routingFilter).where(eq(routingFilter.entityId, entityId)).orderBy(asc(routingFilter.priority), asc(routingFilter.id));
}

export async function insertFilter(
  db: Db,
  entityId: number,
  values: Pick<FilterRow, 'name' | 'queueId' | 'priority' | 'conditions' | 'isActive'>,
): Promise<FilterRow> {
  const [row] = await db
    .insert(routingFilter)
    .values({ entityId, ...values })
    .returning();
  return row!;
}

export async function updateFilter(
  db: Db,
  entityId: number,
  id: number,
  values: Partial<Pick<FilterRow, 'name' | 'queueId' | 'priority' | 'conditions' | 'isActive'>>,
): Promise<FilterRow | undefined> {
  if (Object.keys(values).length === 0) {
    const [filter] = await db
      .select()
      .from(routingFilter)
      .where(and(eq(routingFilter.entityId, entityId), eq(routingFilter.id, id)));
    return filter; // an empty change reads the filter back
  }
  const [row] = await db
    .update(routingFilter)
    .set(values)
    .where(and(eq(routingFilter.entityId, entityId), eq(routingFilter.id, id)))
    .returning();
  return row;
}

/** True when the filter existed and was removed. */
export async function deleteFilter(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(routingFilter)
    .where(and(eq(routingFilter.entityId, entityId), eq(routingFilter.id, id)))
    .returning({ id: routingFilter.id });
  return rows.length > 0;
}

/** Queues a conversation in `queueId` (nobody could take it yet). */
export async function queueConversation(db: Db, conversationId: number, queueId: number): Promise<ConversationRow> {
  const [row] = await db
    .update(conversation)
    .set({ assignmentStatus: 'queued', queueId, queuedAt: new Date(), updatedAt: new Date() })
    .where(eq(conversation.id, conversationId))
    .returning();
  return row!;
}

/** Assigns a conversation to `employeeId` (from `queueId`, or null for a seller). */
export async function assignConversation(db: Db, conversationId: number, employeeId: number, queueId: number | null): Promise<ConversationRow> {
  const [row] = await db
    .update(conversation)
    .set({ assignmentStatus: 'assigned', assignedEmployeeId: employeeId, assignedAt: new Date(), queueId, queuedAt: null, updatedAt: new Date() })
    .where(eq(conversation.id, conversationId))
    .returning();
  return row!;
}
