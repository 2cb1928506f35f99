/**
 * The conversations API (SPEC "Interactions" → Conversations): inbox list, detail, history, workspace
 * notes, read, follow-up, assign and unassign. Another entity's conversation is 404. Changes are
 * pushed to the entity's sockets after commit.
 */
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { Realtime } from '../../platform/realtime/gateway.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { notFound } from '../../platform/errors.js';
import type { IdentityService } from '../identity/index.js';
import * as repo from './conversation.repository.js';
import { toConversationResponse, toMessageResponse, type ConversationRow } from './conversation.mapper.js';
import type { ConversationListQuery, ConversationResponse, MessageResponse } from './conversation.schemas.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { assignFromQueue, drainQueuesOf } from './routing.engine.js';
import { findQueue, queueConversation } from './routing.repository.js';
import { AfterCommit } from './after-commit.js';
import { announceAssignment, announceUnassignment } from './interactions.events.js';
import { emitConversationRead, emitConversationUpdated } from './interactions.realtime.js';

/** Who changes a conversation: an employee, or the system (a workflow) with `employeeId` null. */
export type Actor = { entityId: number; employeeId: number | null };

type Page<T> = { data: T[]; pagination: { next_cursor: string | null; limit: number } };

export interface ConversationService {
  list(p: Principal, q: ConversationListQuery): Promise<Page<ConversationResponse>>;
  get(p: Principal, id: number): Promise<ConversationResponse>;
  history(p: Principal, id: number, q: { limit?: number | undefined; cursor?: string | undefined }): Promise<Page<MessageResponse>>;
  setNotes(p: Actor, id: number, notes: string): Promise<ConversationResponse>;
  /** Appends `line` to the workspace notes unless they already end with it (a repeated workflow step adds nothing). */
  appendNote(p: Actor, id: number, line: string): Promise<ConversationResponse>;
  markRead(p: Principal, id: number): Promise<ConversationResponse>;
  setFollowUp(p: Actor, id: number, followUp: boolean): Promise<ConversationResponse>;
  assign(p: Actor, id: number, employeeId: number): Promise<ConversationResponse>;
  /** Assigns to the next member of routing queue `queueId` by round robin, or leaves it waiting in the queue. 404 for another entity's queue. */
  assignThroughQueue(p: Actor, id: number, queueId: number): Promise<ConversationResponse>;
  unassign(p: Principal, id: number): Promise<ConversationResponse>;
}

export function createConversationService(deps: {
  db: Db;
  events: EventBus;
  realtime: Realtime;
  identity: Pick<IdentityService, 'assertActiveMember'>;
  /** Called after a conversation is marked read (the platform read receipt). */
  onRead?: (entityId: number, conversationId: number) => Promise<void>;
}): ConversationService {
  const { db } = deps;
  const load = async (p: Actor, id: number) => {
    const row = await repo.getConversation(db, p.entityId, id);
    if (!row) throw notFound('conversation', id);
    return row;
  };
  const update = async (p: Actor, id: number, values: Parameters<typeof repo.updateConversation>[3], emit: typeof emitConversationUpdated) => {
    const row = await repo.updateConversation(db, p.entityId, id, values);
    if (!row) throw notFound('conversation', id);
    emit(deps.realtime, row);
    return toConversationResponse(row);
  };
  return {
    async list(p, q) {
      const limit = q.limit ?? 25;
      const after = decodeCursor(q.cursor);
      const rows = await repo.listConversations(db, p.entityId, {
        filter: q.filter ?? 'all',
        employeeId: p.employeeId,
        channelTypeCode: q.channel_type_code,
        followUp: q.follow_up,
        unread: q.unread,
        q: q.q,
        after: after ? { sortKeyMs: after.key, id: after.id } : undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { data: page.map(toConversationResponse), pagination: { next_cursor: rows.length > limit && last ? encodeCursor(last.lastMessageAt?.getTime() ?? 0, last.id) : null, limit } };
    },
    async get(p, id) {
      return toConversationResponse(await load(p, id));
    },
    async history(p, id, q) {
      await load(p, id);
      const limit = q.limit ?? 50;
      const before = decodeCursor(q.cursor);
      const rows = await repo.history(db, p.entityId, id, limit + 1, before ? { ms: before.key, id: before.id } : undefined);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { data: page.map(toMessageResponse), pagination: { next_cursor: rows.length > limit && last ? encodeCursor(last.occurredAtMs, last.id) : null, limit } };
    },
    setNotes: (p, id, notes) => update(p, id, { workspaceNotes: notes }, emitConversationUpdated),
    async appendNote(p, id, line) {
      const current = await load(p, id);
      const notes = current.workspaceNotes ?? '';
      if (notes === line || notes.endsWith(`\n${line}`)) return toConversationResponse(current);
      return update(p, id, { workspaceNotes: notes === '' ? line : `${notes}\n${line}` }, emitConversationUpdated);
    },
    async markRead(p, id) {
      const read = await update(p, id, { unreadCount: 0 }, emitConversationRead);
      await deps.onRead?.(p.entityId, id);
      return read;
    },
    setFollowUp: (p, id, followUp) => update(p, id, { followUp }, emitConversationUpdated),
    async assign(p, id, employeeId) {
      await deps.identity.assertActiveMember(p.entityId, employeeId, '/body/employee_id');
      const out = new AfterCommit();
      let previous: ConversationRow | undefined;
      const row = await db.transaction(async (tx) => {
        previous = await repo.getConversation(tx, p.entityId, id, true);
        if (!previous) throw notFound('conversation', id);
        const updated = await repo.updateConversation(tx, p.entityId, id, { assignmentStatus: 'assigned', assignedEmployeeId: employeeId, assignedAt: new Date(), queuedAt: null });
        announceAssignment(out, { conversation: updated!, employeeId, via: 'manual', queueId: null }, p.employeeId);
        const released = releasedEmployee(previous);
        if (released !== null && released.assignedEmployeeId !== employeeId) {
          announceUnassignment(out, released, p.employeeId);
          for (const a of await drainQueuesOf(tx, p.entityId, released.assignedEmployeeId)) announceAssignment(out, a, null);
        }
        return updated!;
      });
      await out.publish(deps);
      return toConversationResponse(row);
    },
    async assignThroughQueue(p, id, queueId) {
      const out = new AfterCommit();
      const row = await db.transaction(async (tx) => {
        const previous = await repo.getConversation(tx, p.entityId, id, true);
        if (!previous) throw notFound('conversation', id);
        if (!(await findQueue(tx, p.entityId, queueId))) throw notFound('routing queue', queueId);
        const assignment = await assignFromQueue(tx, p.entityId, queueId, id);
        let row: ConversationRow;
        if (assignment) {
          announceAssignment(out, assignment, p.employeeId);
          row = assignment.conversation;
        } else {
          await repo.updateConversation(tx, p.entityId, id, { assignedEmployeeId: null, assignedAt: null });
          row = await queueConversation(tx, id, queueId);
          emitConversationUpdated(out, row);
        }
        const released = releasedEmployee(previous);
        if (released !== null && released.assignedEmployeeId !== assignment?.employeeId) {
          announceUnassignment(out, released, p.employeeId);
          for (const a of await drainQueuesOf(tx, p.entityId, released.assignedEmployeeId)) announceAssignment(out, a, null);
        }
        return row;
      });
      await out.publish(deps);
      return toConversationResponse(row);
    },
    async unassign(p, id) {
      const out = new AfterCommit();
      const row = await db.transaction(async (tx) => {
        const previous = await repo.getConversation(tx, p.entityId, id, true);
        if (!previous) throw notFound('conversation', id);
        const updated = await repo.updateConversation(tx, p.entityId, id, { assignmentStatus: 'unassigned', assignedEmployeeId: null, assignedAt: null, queueId: null, queuedAt: null });
        emitConversationUpdated(out, updated!);
        const released = releasedEmployee(previous);
        if (released !== null) {
          announceUnassignment(out, released, p.employeeId);
          for (const a of await drainQueuesOf(tx, p.entityId, released.assignedEmployeeId)) announceAssignment(out, a, null);
        }
        return updated!;
      });
      await out.publish(deps);
      return toConversationResponse(row);
    },
  };
}

/** `previous` when it was assigned to an employee (who frees capacity by losing it), else null. */
function releasedEmployee(previous: ConversationRow): (ConversationRow & { assignedEmployeeId: number }) | null {
  return previous.assignmentStatus === 'assigned' && previous.assignedEmployeeId !== null ? { ...previous, assignedEmployeeId: previous.assignedEmployeeId } : null;
}
