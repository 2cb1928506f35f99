/**
 * Administration of routing queues, members and filters. Making a member available, raising its
 * capacity or adding it hands waiting conversations out at once (oldest first). Rules and transactions
 * here; every query in routing.repository.ts.
 */
import type { Static } from 'typebox';
import type { Db } from '../../../db/client.js';
import type { IdentityService } from '../../identity/index.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { conflict, notFound, validationFailed } from '../../../platform/errors.js';
import type { FilterBody, FilterPatch, MemberBody, MemberPatch, QueueBody, QueuePatch } from './routing.schemas.js';
import * as repo from './routing.repository.js';
import { existingAccountIds } from '../channel-accounts/index.js';
import { drainQueue, drainQueuesOf, type Assignment } from './routing.engine.js';
import { transaction } from '../../../platform/transactions/transaction.js';
import { changeConversations, type ConversationChange } from '../activity/index.js';
import { announceAssignment } from '../events/index.js';
import type { RoutingConditions } from './routing.rules.js';

const toQueue = (q: repo.QueueRow) => ({
  id: q.id,
  name: q.name,
  is_default: q.isDefault,
  default_capacity: q.defaultCapacity,
  created_at: q.createdAt.toISOString(),
});
const toMember = (m: repo.MemberRow) => ({
  id: m.id,
  queue_id: m.queueId,
  employee_id: m.employeeId,
  position: m.position,
  is_available: m.isAvailable,
  capacity: m.capacity,
});
const toFilter = (f: repo.FilterRow) => ({
  id: f.id,
  name: f.name,
  queue_id: f.queueId,
  priority: f.priority,
  conditions: f.conditions as RoutingConditions,
  is_active: f.isActive,
});

export type RoutingService = ReturnType<typeof createRoutingService>;

export function createRoutingService(deps: {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  identity: Pick<IdentityService, 'assertActiveMember' | 'assertActiveMembers'>;
}) {
  const { db } = deps;
  const queueOf = async (tx: Db, p: Principal, id: number) => {
    const q = await repo.findQueue(tx, p.entityId, id);
    if (!q) throw notFound('routing_queue', id);
    return q;
  };
  /** 400 `validation_failed` naming each channel account or seller of `conditions` that is not the entity's own. */
  const checkReferences = async (p: Principal, conditions: RoutingConditions) => {
    const accounts = conditions.entity_channel_account_ids ?? [];
    const own = new Set(await existingAccountIds(db, p.entityId, [...new Set(accounts)]));
    const errors = accounts.flatMap((id, i) =>
      own.has(id) ? [] : [{ field: `/body/conditions/entity_channel_account_ids/${i}`, message: `channel account ${id} not found` }],
    );
    if (errors.length > 0) throw validationFailed(errors);
    await deps.identity.assertActiveMembers(p.entityId, conditions.lead_seller_employee_ids ?? [], '/body/conditions/lead_seller_employee_ids');
  };
  /** Announces, after the commit of `change`, the conversations a drain handed out. */
  const announceDrained = (change: ConversationChange, assignments: Assignment[]) => {
    for (const a of assignments) announceAssignment(change, a, null);
  };

  return {
    async listQueues(p: Principal) {
      return { data: (await repo.listQueues(db, p.entityId)).map(toQueue) };
    },
    async createQueue(p: Principal, body: Static<typeof QueueBody>) {
      return transaction(db, async ({ tx }) => {
        const q = await repo.insertQueue(tx, p.entityId, {
          name: body.name,
          isDefault: body.is_default ?? false,
          defaultCapacity: body.default_capacity ?? 10,
        });
        if (q.isDefault) await repo.clearOtherDefaults(tx, p.entityId, q.id);
        return toQueue(q);
      });
    },
    async updateQueue(p: Principal, id: number, body: Static<typeof QueuePatch>) {
      const queue = await changeConversations(
        db,
        async (change) => {
          const { tx } = change;
          await queueOf(tx, p, id);
          const q = await repo.updateQueue(tx, p.entityId, id, {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.is_default !== undefined ? { isDefault: body.is_default } : {}),
            ...(body.default_capacity !== undefined ? { defaultCapacity: body.default_capacity } : {}),
          });
          if (body.is_default === true) await repo.clearOtherDefaults(tx, p.entityId, id);
          if (body.default_capacity !== undefined) announceDrained(change, await drainQueue(tx, p.entityId, id));
          return q!;
        },
        deps,
      );
      return toQueue(queue);
    },
    async deleteQueue(p: Principal, id: number) {
      await transaction(db, async ({ tx }) => {
        await queueOf(tx, p, id);
        await repo.deleteQueue(tx, p.entityId, id);
      });
    },
    async listMembers(p: Principal, queueId: number) {
      await queueOf(db, p, queueId);
      return { data: (await repo.listMembers(db, queueId)).map(toMember) };
    },
    async addMember(p: Principal, queueId: number, body: Static<typeof MemberBody>) {
      await deps.identity.assertActiveMember(p.entityId, body.employee_id, '/body/employee_id');
      const member = await changeConversations(
        db,
        async (change) => {
          const { tx } = change;
          await queueOf(tx, p, queueId);
          const m = await repo.insertMember(tx, p.entityId, {
            queueId,
            employeeId: body.employee_id,
            position: body.position ?? 0,
            isAvailable: body.is_available ?? true,
            capacity: body.capacity ?? null,
          });
          if (!m) throw conflict('already_exists', `Employee ${body.employee_id} is already in queue ${queueId}`);
          announceDrained(change, await drainQueue(tx, p.entityId, queueId));
          return m;
        },
        deps,
      );
      return toMember(member);
    },
    async updateMember(p: Principal, queueId: number, memberId: number, body: Static<typeof MemberPatch>) {
      const member = await changeConversations(
        db,
        async (change) => {
          const { tx } = change;
          await queueOf(tx, p, queueId);
          const m = await repo.updateMember(tx, queueId, memberId, {
            ...(body.position !== undefined ? { position: body.position } : {}),
            ...(body.is_available !== undefined ? { isAvailable: body.is_available } : {}),
            ...(body.capacity !== undefined ? { capacity: body.capacity } : {}),
          });
          if (!m) throw notFound('routing_queue_member', memberId);
          if (m.isAvailable) announceDrained(change, await drainQueuesOf(tx, p.entityId, m.employeeId));
          return m;
        },
        deps,
      );
      return toMember(member);
    },
    async removeMember(p: Principal, queueId: number, memberId: number) {
      await queueOf(db, p, queueId);
      if (!(await repo.deleteMember(db, queueId, memberId))) throw notFound('routing_queue_member', memberId);
    },
    /** The caller's own availability in every queue (an agent going online or offline). */
    async setMyAvailability(p: Principal, isAvailable: boolean) {
      await changeConversations(
        db,
        async (change) => {
          const { tx } = change;
          await repo.setAvailability(tx, p.entityId, p.employeeId, isAvailable);
          if (isAvailable) announceDrained(change, await drainQueuesOf(tx, p.entityId, p.employeeId));
        },
        deps,
      );
      return { employee_id: p.employeeId, is_available: isAvailable };
    },
    async listFilters(p: Principal) {
      return { data: (await repo.listFilters(db, p.entityId)).map(toFilter) };
    },
    async createFilter(p: Principal, body: Static<typeof FilterBody>) {
      await queueOf(db, p, body.queue_id);
      await checkReferences(p, body.conditions);
      const f = await repo.insertFilter(db, p.entityId, {
        name: body.name,
        queueId: body.queue_id,
        priority: body.priority ?? 100,
        conditions: body.conditions,
        isActive: body.is_active ?? true,
      });
      return toFilter(f);
    },
    async updateFilter(p: Principal, id: number, body: Static<typeof FilterPatch>) {
      if (body.queue_id !== undefined) await queueOf(db, p, body.queue_id);
      if (body.conditions !== undefined) await checkReferences(p, body.conditions);
      const f = await repo.updateFilter(db, p.entityId, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.queue_id !== undefined ? { queueId: body.queue_id } : {}),
        ...(body.priority !== undefined ? { priority: body.priority } : {}),
        ...(body.conditions !== undefined ? { conditions: body.conditions } : {}),
        ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
      });
      if (!f) throw notFound('routing_filter', id);
      return toFilter(f);
    },
    async deleteFilter(p: Principal, id: number) {
      if (!(await repo.deleteFilter(db, p.entityId, id))) throw notFound('routing_filter', id);
    },
  };
}
