/**
 * Assigning conversations by hand or by workflow (SPEC "Interactions" → Conversations: assign, unassign;
 * routing queues): to an employee, through a routing queue's round robin, or back to unassigned. An
 * employee who loses a conversation frees capacity, so the queues they belong to are drained in the same
 * transaction. Another entity's conversation or queue is 404, and so is one the caller may not see
 * (conversation-visibility.ts); changes are pushed after commit.
 */
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { notFound } from '../../../platform/errors.js';
import type { IdentityService } from '../../identity/index.js';
import { getConversation, updateConversation } from '../conversations/index.js';
import { toConversationResponse, type ConversationRow } from '../conversations/index.js';
import type { ConversationResponse } from '../conversations/index.js';
import { viewerOf, type Actor } from '../conversations/index.js';
import { assignFromQueue, drainQueuesOf } from './routing.engine.js';
import { findQueue, queueConversation } from './routing.repository.js';
import { changeConversations } from '../activity/index.js';
import { announceAssignment, announceUnassignment } from '../events/index.js';
import { emitConversationUpdated } from '../conversations/index.js';

export interface AssignmentService {
  /** To an active member of the entity (400 at `/body/employee_id` otherwise). */
  assign(p: Actor, id: number, employeeId: number): Promise<ConversationResponse>;
  /** Assigns to the next member of routing queue `queueId` by round robin, or leaves it waiting in the queue. 404 for another entity's queue. */
  assignThroughQueue(p: Actor, id: number, queueId: number): Promise<ConversationResponse>;
  unassign(p: Principal, id: number): Promise<ConversationResponse>;
}

export function createAssignmentService(deps: {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  identity: Pick<IdentityService, 'assertActiveMember'>;
}): AssignmentService {
  const { db } = deps;
  return {
    async assign(p, id, employeeId) {
      await deps.identity.assertActiveMember(p.entityId, employeeId, '/body/employee_id');
      let previous: ConversationRow | undefined;
      const row = await changeConversations(
        db,
        async (change) => {
          const { tx, events: out } = change;
          previous = await getConversation(tx, p.entityId, id, true, viewerOf(p));
          if (!previous) throw notFound('conversation', id);
          const updated = await updateConversation(tx, p.entityId, id, {
            assignmentStatus: 'assigned',
            assignedEmployeeId: employeeId,
            assignedAt: new Date(),
            queuedAt: null,
          });
          announceAssignment(change, { conversation: updated!, employeeId, via: 'manual', queueId: null }, p.employeeId);
          const released = releasedEmployee(previous);
          if (released !== null && released.assignedEmployeeId !== employeeId) {
            emitConversationUpdated(out, updated!, { employeeIds: [released.assignedEmployeeId] });
            announceUnassignment(change, released, p.employeeId, updated!);
            for (const a of await drainQueuesOf(tx, p.entityId, released.assignedEmployeeId)) announceAssignment(change, a, null);
          }
          return updated!;
        },
        deps,
      );
      return toConversationResponse(row);
    },
    async assignThroughQueue(p, id, queueId) {
      const row = await changeConversations(
        db,
        async (change) => {
          const { tx, events: out } = change;
          const previous = await getConversation(tx, p.entityId, id, true, viewerOf(p));
          if (!previous) throw notFound('conversation', id);
          if (!(await findQueue(tx, p.entityId, queueId))) throw notFound('routing queue', queueId);
          const assignment = await assignFromQueue(tx, p.entityId, queueId, id);
          let row: ConversationRow;
          if (assignment) {
            announceAssignment(change, assignment, p.employeeId);
            row = assignment.conversation;
          } else {
            await updateConversation(tx, p.entityId, id, { assignedEmployeeId: null, assignedAt: null });
            row = await queueConversation(tx, id, queueId);
            emitConversationUpdated(out, row);
          }
          const released = releasedEmployee(previous);
          if (released !== null && released.assignedEmployeeId !== assignment?.employeeId) {
            emitConversationUpdated(out, row, { employeeIds: [released.assignedEmployeeId] });
            announceUnassignment(change, released, p.employeeId, row);
            for (const a of await drainQueuesOf(tx, p.entityId, released.assignedEmployeeId)) announceAssignment(change, a, null);
          }
          return row;
        },
        deps,
      );
      return toConversationResponse(row);
    },
    async unassign(p, id) {
      const row = await changeConversations(
        db,
        async (change) => {
          const { tx, events: out } = change;
          const previous = await getConversation(tx, p.entityId, id, true, viewerOf(p));
          if (!previous) throw notFound('conversation', id);
          const updated = await updateConversation(tx, p.entityId, id, {
            assignmentStatus: 'unassigned',
            assignedEmployeeId: null,
            assignedAt: null,
            queueId: null,
            queuedAt: null,
          });
          const released = releasedEmployee(previous);
          emitConversationUpdated(out, updated!, { employeeIds: released ? [released.assignedEmployeeId] : [] });
          if (released !== null) {
            announceUnassignment(change, released, p.employeeId, updated!);
            for (const a of await drainQueuesOf(tx, p.entityId, released.assignedEmployeeId)) announceAssignment(change, a, null);
          }
          return updated!;
        },
        deps,
      );
      return toConversationResponse(row);
    },
  };
}

/** `previous` when it was assigned to an employee (who frees capacity by losing it), else null. */
function releasedEmployee(previous: ConversationRow): (ConversationRow & { assignedEmployeeId: number }) | null {
  return previous.assignmentStatus === 'assigned' && previous.assignedEmployeeId !== null
    ? { ...previous, assignedEmployeeId: previous.assignedEmployeeId }
    : null;
}
