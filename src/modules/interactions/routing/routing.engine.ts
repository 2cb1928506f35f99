/**
 * Routing of conversations (SPEC routing_queue, routing_queue_member, routing_filter, routing_rr_cursor),
 * run inside the caller's transaction:
 * 1. a conversation whose lead or group has a seller goes to that seller when the seller is an available
 *    member of a queue of the entity with free capacity;
 * 2. otherwise the first active filter (by priority) whose conditions hold selects a queue, or the
 *    entity's default queue;
 * 3. the queue hands it round robin to the next available member under capacity, the cursor row locked
 *    (SELECT ... FOR UPDATE) so concurrent routers never take the same slot;
 * 4. when nobody can take it, it waits in the queue (`queued`) and `drainQueue` hands waiting
 *    conversations out oldest first when a member becomes available or frees capacity.
 */
import type { Db } from '../../../db/client.js';
import type { ConversationRow } from '../conversations/index.js';
import * as repo from './routing.repository.js';
import { matchesConditions, type RoutingConditions, type RoutingFacts } from './routing.rules.js';

export interface Assignment {
  conversation: ConversationRow;
  employeeId: number;
  via: 'seller' | 'queue';
  queueId: number | null;
}

export interface RouteResult {
  conversation: ConversationRow;
  assignment: Assignment | null;
}

const canTake = (c: repo.Candidate) => c.is_available && c.open_count < c.capacity;

/**
 * Routes an unassigned conversation after an inbound message. `sellers` is read only when the entity
 * has queues (an entity without queues routes nothing, which keeps the common path to one query, or to
 * none when the caller already read `entityHasQueues` false in this transaction).
 */
export async function routeConversation(
  db: Db,
  conv: ConversationRow,
  partial: Omit<RoutingFacts, 'sellerEmployeeIds'>,
  sellers: () => Promise<number[]>,
  entityHasQueues?: boolean,
): Promise<RouteResult> {
  if (entityHasQueues === false) return { conversation: conv, assignment: null };
  const setup = await repo.routingSetup(db, conv.entityId);
  if (!setup.hasQueues) return { conversation: conv, assignment: null };
  const facts: RoutingFacts = { ...partial, sellerEmployeeIds: await sellers() };
  for (const sellerId of facts.sellerEmployeeIds) {
    const memberships = await repo.lockMemberships(db, conv.entityId, sellerId);
    const ok = memberships.find(canTake);
    if (ok) {
      const updated = await repo.assignConversation(db, conv.id, sellerId, null);
      return { conversation: updated, assignment: { conversation: updated, employeeId: sellerId, via: 'seller', queueId: null } };
    }
  }
  const filter = setup.filters.find((f) => matchesConditions(f.conditions as RoutingConditions, facts));
  const queueId = filter?.queueId ?? setup.defaultQueueId;
  if (queueId === null) return { conversation: conv, assignment: null };
  const assignment = await assignFromQueue(db, conv.entityId, queueId, conv.id);
  if (assignment) return { conversation: assignment.conversation, assignment };
  return { conversation: await repo.queueConversation(db, conv.id, queueId), assignment: null };
}

/** Picks the next member of `queueId` round robin and assigns `conversationId`; null when nobody can take it. */
export async function assignFromQueue(db: Db, entityId: number, queueId: number, conversationId: number): Promise<Assignment | null> {
  const cursor = await repo.lockCursor(db, entityId, queueId);
  const members = await repo.candidates(db, entityId, queueId);
  if (members.length === 0) return null;
  const lastIndex = cursor.lastMemberId === null ? -1 : members.findIndex((m) => m.employee_id === cursor.lastMemberId);
  const start =
    lastIndex >= 0
      ? lastIndex + 1
      : Math.max(
          0,
          members.findIndex((m) => m.position > cursor.lastPosition),
        );
  for (let i = 0; i < members.length; i++) {
    const m = members[(start + i) % members.length]!;
    if (!canTake(m)) continue;
    await repo.advanceCursor(db, queueId, m.position, m.employee_id);
    const updated = await repo.assignConversation(db, conversationId, m.employee_id, queueId);
    return { conversation: updated, employeeId: m.employee_id, via: 'queue', queueId };
  }
  return null;
}

/** Hands waiting conversations of `queueId` out, oldest first, until nobody can take more. */
export async function drainQueue(db: Db, entityId: number, queueId: number, max = 100): Promise<Assignment[]> {
  const out: Assignment[] = [];
  const waiting = await repo.waitingConversations(db, entityId, queueId, max);
  for (const w of waiting) {
    const a = await assignFromQueue(db, entityId, queueId, w.id);
    if (!a) break;
    out.push(a);
  }
  return out;
}

/** Drains every queue `employeeId` belongs to (after the employee frees capacity or comes online). */
export async function drainQueuesOf(db: Db, entityId: number, employeeId: number): Promise<Assignment[]> {
  const out: Assignment[] = [];
  for (const queueId of await repo.queuesOfEmployee(db, entityId, employeeId)) out.push(...(await drainQueue(db, entityId, queueId)));
  return out;
}
