/** Drizzle queries of routing: queues, members, filters, the round-robin cursor and open-conversation counts. */
import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { routingFilter, routingQueue, routingQueueMember, routingRrCursor } from './routing.table.js';
import { conversation } from './conversation.table.js';

export type QueueRow = typeof routingQueue.$inferSelect;
export type MemberRow = typeof routingQueueMember.$inferSelect;
export type FilterRow = typeof routingFilter.$inferSelect;

export async function activeFilters(db: Db, entityId: number): Promise<FilterRow[]> {
  return db.select().from(routingFilter).where(and(eq(routingFilter.entityId, entityId), eq(routingFilter.isActive, true))).orderBy(asc(routingFilter.priority), asc(routingFilter.id));
}

export async function defaultQueue(db: Db, entityId: number): Promise<QueueRow | undefined> {
  const [row] = await db.select().from(routingQueue).where(and(eq(routingQueue.entityId, entityId), eq(routingQueue.isDefault, true))).orderBy(asc(routingQueue.id)).limit(1);
  return row;
}

export interface Candidate {
  member_id: number;
  employee_id: number;
  position: number;
  is_available: boolean;
  capacity: number;
  open_count: number;
}

/** Queue members of active employees with their capacity and current open (assigned) conversations. */
function candidateSelect(entityId: number) {
  return sql`select m.id as member_id, m.employee_id, m.position, m.is_available,
               coalesce(m.capacity, q.default_capacity) as capacity,
               (select count(*)::int from conversation c
                 where c.entity_id = ${entityId} and c.assigned_employee_id = m.employee_id and c.assignment_status = 'assigned') as open_count
          from routing_queue_member m
          join routing_queue q on q.id = m.queue_id
          join employee e on e.id = m.employee_id and e.is_active`;
}

/** Members of `queueId` in round-robin order with their capacity and current open (assigned) conversations. */
export async function candidates(db: Db, entityId: number, queueId: number): Promise<Candidate[]> {
  return queryRows<Candidate>(
    db,
    sql`${candidateSelect(entityId)} where m.queue_id = ${queueId} and m.entity_id = ${entityId} order by m.position, m.id`,
  );
}

/** Memberships of `employeeId` (any queue of the entity), locked so capacity checks of one agent are serialized. */
export async function lockMemberships(db: Db, entityId: number, employeeId: number): Promise<Candidate[]> {
  await db.select({ id: routingQueueMember.id }).from(routingQueueMember).where(and(eq(routingQueueMember.entityId, entityId), eq(routingQueueMember.employeeId, employeeId))).for('update');
  return queryRows<Candidate>(
    db,
    sql`${candidateSelect(entityId)} where m.entity_id = ${entityId} and m.employee_id = ${employeeId} order by m.id`,
  );
}

/** Locks (creating if needed) the cursor of `queueId`; concurrent routers of one queue wait here. */
export async function lockCursor(db: Db, entityId: number, queueId: number): Promise<{ lastPosition: number; lastMemberId: number | null }> {
  await db.insert(routingRrCursor).values({ queueId, entityId }).onConflictDoNothing();
  const [row] = await db.select().from(routingRrCursor).where(eq(routingRrCursor.queueId, queueId)).for('update');
  return { lastPosition: row?.lastPosition ?? -1, lastMemberId: row?.lastEmployeeId ?? null };
}

export async function advanceCursor(db: Db, queueId: number, position: number, employeeId: number): Promise<void> {
  await db.update(routingRrCursor).set({ lastPosition: position, lastEmployeeId: employeeId, updatedAt: new Date() }).where(eq(routingRrCursor.queueId, queueId));
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
  const rows = await db.select({ queueId: routingQueueMember.queueId }).from(routingQueueMember).where(and(eq(routingQueueMember.entityId, entityId), eq(routingQueueMember.employeeId, employeeId)));
  return rows.map((r) => r.queueId);
}

export interface RoutingSetup {
  hasQueues: boolean;
  filters: FilterRow[];
  defaultQueueId: number | null;
}

/** In one round trip: whether the entity routes at all, its active filters (priority order) and its default queue. */
export async function routingSetup(db: Db, entityId: number): Promise<RoutingSetup> {
  const [row] = await queryRows<{ has_queues: boolean; default_queue_id: number | null; filters: FilterJson[] | null }>(
    db,
    sql`select exists(select 1 from routing_queue q where q.entity_id = ${entityId}) as has_queues,
               (select q.id from routing_queue q where q.entity_id = ${entityId} and q.is_default order by q.id limit 1) as default_queue_id,
               (select json_agg(json_build_object('id', f.id, 'queue_id', f.queue_id, 'conditions', f.conditions) order by f.priority, f.id)
                  from routing_filter f where f.entity_id = ${entityId} and f.is_active) as filters`,
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
