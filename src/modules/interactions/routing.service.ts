/**
 * Administration of routing queues, members and filters. Making a member available, raising its
 * capacity or adding it hands waiting conversations out at once (oldest first).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { queryRows, type Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { Realtime } from '../../platform/realtime/gateway.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { badRequest, conflict, notFound } from '../../platform/errors.js';
import { routingFilter, routingQueue, routingQueueMember } from './routing.table.js';
import type { FilterBody, FilterPatch, MemberBody, MemberPatch, QueueBody, QueuePatch } from './routing.schemas.js';
import { drainQueue, drainQueuesOf, type Assignment } from './routing.engine.js';
import { pushAssignmentEffects, type Effects } from './projection.service.js';
import { publishEffects } from './effects.js';
import type { RoutingConditions } from './routing.rules.js';

type Queue = typeof routingQueue.$inferSelect;
type Member = typeof routingQueueMember.$inferSelect;
type Filter = typeof routingFilter.$inferSelect;

const toQueue = (q: Queue) => ({ id: q.id, name: q.name, is_default: q.isDefault, default_capacity: q.defaultCapacity, created_at: q.createdAt.toISOString() });
const toMember = (m: Member) => ({ id: m.id, queue_id: m.queueId, employee_id: m.employeeId, position: m.position, is_available: m.isAvailable, capacity: m.capacity });
const toFilter = (f: Filter) => ({ id: f.id, name: f.name, queue_id: f.queueId, priority: f.priority, conditions: f.conditions as RoutingConditions, is_active: f.isActive });

export type RoutingService = ReturnType<typeof createRoutingService>;

export function createRoutingService(deps: { db: Db; events: EventBus; realtime: Realtime }) {
  const { db } = deps;
  const queueOf = async (tx: Db, p: Principal, id: number) => {
    const [q] = await tx.select().from(routingQueue).where(and(eq(routingQueue.entityId, p.entityId), eq(routingQueue.id, id)));
    if (!q) throw notFound('routing_queue', id);
    return q;
  };
  const ensureEmployee = async (p: Principal, employeeId: number) => {
    const rows = await queryRows<{ id: number }>(db, sql`select id from employee where id = ${employeeId} and entity_id = ${p.entityId}`);
    if (rows.length === 0) throw badRequest('invalid_employee', `Employee ${employeeId} is not a member of this entity`);
  };
  const publishAssignments = async (assignments: Assignment[]) => {
    const effects: Effects = { realtime: [], domain: [] };
    for (const a of assignments) pushAssignmentEffects(effects, a, null);
    await publishEffects(deps, effects);
  };
  const clearOtherDefaults = async (tx: Db, p: Principal, keepId: number) => {
    await tx.update(routingQueue).set({ isDefault: false }).where(and(eq(routingQueue.entityId, p.entityId), sql`${routingQueue.id} <> ${keepId}`));
  };

  return {
    async listQueues(p: Principal) {
      const rows = await db.select().from(routingQueue).where(eq(routingQueue.entityId, p.entityId)).orderBy(asc(routingQueue.id));
      return { data: rows.map(toQueue) };
    },
    async createQueue(p: Principal, body: Static<typeof QueueBody>) {
      return db.transaction(async (tx) => {
        const [q] = await tx.insert(routingQueue).values({ entityId: p.entityId, name: body.name, isDefault: body.is_default ?? false, defaultCapacity: body.default_capacity ?? 10 }).returning();
        if (q!.isDefault) await clearOtherDefaults(tx, p, q!.id);
        return toQueue(q!);
      });
    },
    async updateQueue(p: Principal, id: number, body: Static<typeof QueuePatch>) {
      const { queue, assignments } = await db.transaction(async (tx) => {
        await queueOf(tx, p, id);
        const [q] = await tx
          .update(routingQueue)
          .set({ ...(body.name !== undefined ? { name: body.name } : {}), ...(body.is_default !== undefined ? { isDefault: body.is_default } : {}), ...(body.default_capacity !== undefined ? { defaultCapacity: body.default_capacity } : {}) })
          .where(eq(routingQueue.id, id))
          .returning();
        if (body.is_default === true) await clearOtherDefaults(tx, p, id);
        return { queue: q!, assignments: body.default_capacity !== undefined ? await drainQueue(tx, p.entityId, id) : [] };
      });
      await publishAssignments(assignments);
      return toQueue(queue);
    },
    async deleteQueue(p: Principal, id: number) {
      await db.transaction(async (tx) => {
        await queueOf(tx, p, id);
        await tx.execute(sql`update conversation set assignment_status = 'unassigned', queue_id = null, queued_at = null where queue_id = ${id} and assignment_status = 'queued'`);
        await tx.delete(routingQueue).where(eq(routingQueue.id, id));
      });
    },
    async listMembers(p: Principal, queueId: number) {
      await queueOf(db, p, queueId);
      const rows = await db.select().from(routingQueueMember).where(eq(routingQueueMember.queueId, queueId)).orderBy(asc(routingQueueMember.position), asc(routingQueueMember.id));
      return { data: rows.map(toMember) };
    },
    async addMember(p: Principal, queueId: number, body: Static<typeof MemberBody>) {
      await ensureEmployee(p, body.employee_id);
      const { member, assignments } = await db.transaction(async (tx) => {
        await queueOf(tx, p, queueId);
        const [m] = await tx
          .insert(routingQueueMember)
          .values({ entityId: p.entityId, queueId, employeeId: body.employee_id, position: body.position ?? 0, isAvailable: body.is_available ?? true, capacity: body.capacity ?? null })
          .onConflictDoNothing()
          .returning();
        if (!m) throw conflict('already_exists', `Employee ${body.employee_id} is already in queue ${queueId}`);
        return { member: m, assignments: await drainQueue(tx, p.entityId, queueId) };
      });
      await publishAssignments(assignments);
      return toMember(member);
    },
    async updateMember(p: Principal, queueId: number, memberId: number, body: Static<typeof MemberPatch>) {
      const { member, assignments } = await db.transaction(async (tx) => {
        await queueOf(tx, p, queueId);
        const [m] = await tx
          .update(routingQueueMember)
          .set({ ...(body.position !== undefined ? { position: body.position } : {}), ...(body.is_available !== undefined ? { isAvailable: body.is_available } : {}), ...(body.capacity !== undefined ? { capacity: body.capacity } : {}) })
          .where(and(eq(routingQueueMember.queueId, queueId), eq(routingQueueMember.id, memberId)))
          .returning();
        if (!m) throw notFound('routing_queue_member', memberId);
        return { member: m, assignments: m.isAvailable ? await drainQueuesOf(tx, p.entityId, m.employeeId) : [] };
      });
      await publishAssignments(assignments);
      return toMember(member);
    },
    async removeMember(p: Principal, queueId: number, memberId: number) {
      await queueOf(db, p, queueId);
      const rows = await db.delete(routingQueueMember).where(and(eq(routingQueueMember.queueId, queueId), eq(routingQueueMember.id, memberId))).returning({ id: routingQueueMember.id });
      if (rows.length === 0) throw notFound('routing_queue_member', memberId);
    },
    /** The caller's own availability in every queue (an agent going online or offline). */
    async setMyAvailability(p: Principal, isAvailable: boolean) {
      const assignments = await db.transaction(async (tx) => {
        await tx.update(routingQueueMember).set({ isAvailable }).where(and(eq(routingQueueMember.entityId, p.entityId), eq(routingQueueMember.employeeId, p.employeeId)));
        return isAvailable ? drainQueuesOf(tx, p.entityId, p.employeeId) : [];
      });
      await publishAssignments(assignments);
      return { employee_id: p.employeeId, is_available: isAvailable };
    },
    async listFilters(p: Principal) {
      const rows = await db.select().from(routingFilter).where(eq(routingFilter.entityId, p.entityId)).orderBy(asc(routingFilter.priority), asc(routingFilter.id));
      return { data: rows.map(toFilter) };
    },
    async createFilter(p: Principal, body: Static<typeof FilterBody>) {
      await queueOf(db, p, body.queue_id);
      const [f] = await db
        .insert(routingFilter)
        .values({ entityId: p.entityId, name: body.name, queueId: body.queue_id, priority: body.priority ?? 100, conditions: body.conditions, isActive: body.is_active ?? true })
        .returning();
      return toFilter(f!);
    },
    async updateFilter(p: Principal, id: number, body: Static<typeof FilterPatch>) {
      if (body.queue_id !== undefined) await queueOf(db, p, body.queue_id);
      const [f] = await db
        .update(routingFilter)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.queue_id !== undefined ? { queueId: body.queue_id } : {}),
          ...(body.priority !== undefined ? { priority: body.priority } : {}),
          ...(body.conditions !== undefined ? { conditions: body.conditions } : {}),
          ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
        })
        .where(and(eq(routingFilter.entityId, p.entityId), eq(routingFilter.id, id)))
        .returning();
      if (!f) throw notFound('routing_filter', id);
      return toFilter(f);
    },
    async deleteFilter(p: Principal, id: number) {
      const rows = await db.delete(routingFilter).where(and(eq(routingFilter.entityId, p.entityId), eq(routingFilter.id, id))).returning({ id: routingFilter.id });
      if (rows.length === 0) throw notFound('routing_filter', id);
    },
  };
}
