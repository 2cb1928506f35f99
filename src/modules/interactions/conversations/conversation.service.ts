/**
 * The conversations API (SPEC "Interactions" → Conversations): inbox list and tab counts, detail, history, workspace
 * notes, read and follow-up (assignment is routing's: assignment.service.ts). Another entity's conversation is 404. Changes are
 * pushed to the entity's sockets after commit.
 */
import type { Db } from '../../../db/client.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { notFound, validationFailed } from '../../../platform/errors.js';
import * as repo from './conversation.repository.js';
import { toConversationResponse, toMessageResponse, toNoteResponse, type MessageRow, type NoteRow } from './conversation.mapper.js';
import type {
  ConversationCountsQuery,
  ConversationCountsResponse,
  ConversationListQuery,
  ConversationResponse,
  MessageResponse,
  NoteResponse,
} from './conversation.schemas.js';
import { CONVERSATION_STATUSES } from '../model/index.js';
import { decodeCursor, encodeCursor } from '../../../platform/http/keyset-cursor.js';
import { emitConversationRead, emitConversationUpdated } from './interactions.realtime.js';
import { viewerOf, type ConversationViewer } from './conversation-visibility.js';

/**
 * Who changes a conversation: an employee (a `Principal`, whose permissions decide what it sees), or the
 * system (a workflow) with `employeeId` null. Another's conversation is 404 (conversation-visibility.ts).
 */
export type Actor = { entityId: number; employeeId: number | null; permissions?: ReadonlySet<string>; viewer?: ConversationViewer | undefined };

type Page<T> = { data: T[]; pagination: { next_cursor: string | null; limit: number } };

/** A history item with notes: a message or a note, and its place (`rank`: a message's id × 2, a note's id × 2 + 1). */
export type HistoryItem = ({ kind: 'message'; row: MessageRow } | { kind: 'note'; row: NoteRow }) & { ms: number; rank: number };

/** The notes room's merged read of messages and notes, newest first, after `before` (issue 50). */
type HistoryWithNotes = (db: Db, entityId: number, conversationId: number, limit: number, before?: { ms: number; rank: number }) => Promise<HistoryItem[]>;

export interface ConversationService {
  list(p: Principal, q: ConversationListQuery): Promise<Page<ConversationResponse>>;
  /** The inbox tab badges: conversations per status assigned to the caller, unassigned (or queued), and all, under the list's filters. */
  counts(p: Principal, q: ConversationCountsQuery): Promise<ConversationCountsResponse>;
  get(p: Principal, id: number): Promise<ConversationResponse>;
  /**
   * Newest first; `around` (a message id of the conversation, not with `cursor` nor `include_notes`) starts the page
   * up to half a page above that message: 404 when the message is not the conversation's, 400 `validation_failed`
   * with either. With `include_notes`, the private notes too, in order with the messages (issue 50).
   */
  history(
    p: Principal,
    id: number,
    q: { limit?: number | undefined; cursor?: string | undefined; around?: number | undefined; include_notes?: boolean | undefined },
  ): Promise<Page<MessageResponse | NoteResponse>>;
  setNotes(p: Actor, id: number, notes: string): Promise<ConversationResponse>;
  markRead(p: Principal, id: number): Promise<ConversationResponse>;
  setFollowUp(p: Actor, id: number, followUp: boolean): Promise<ConversationResponse>;
}

export function createConversationService(deps: {
  db: Db;
  realtime: RealtimeEmitter;
  /** Called after a conversation is marked read (the platform read receipt). */
  onRead?: (entityId: number, conversationId: number) => Promise<void>;
  /** The history with notes (`include_notes`); without it the history is the messages alone. */
  historyWithNotes?: HistoryWithNotes;
}): ConversationService {
  const { db } = deps;
  const load = async (p: Actor, id: number) => {
    const row = await repo.getConversation(db, p.entityId, id, false, viewerOf(p));
    if (!row) throw notFound('conversation', id);
    return row;
  };
  const update = async (p: Actor, id: number, values: Parameters<typeof repo.updateConversation>[3], emit: typeof emitConversationUpdated) => {
    const row = await repo.updateConversation(db, p.entityId, id, values, viewerOf(p));
    if (!row) throw notFound('conversation', id);
    emit(deps.realtime, row);
    return toConversationResponse(row);
  };
  return {
    async list(p, q) {
      const limit = q.limit ?? 25;
      const after = decodeCursor(q.cursor);
      const rows = await repo.listConversations(db, {
        viewer: viewerOf(p),
        tab: q.filter ?? 'all',
        status: q.status,
        assignee: q.assignee === undefined || q.assignee === 'me' || q.assignee === 'none' ? q.assignee : Number(q.assignee),
        queueId: q.queue_id,
        channelTypeCode: q.channel_type_code,
        followUp: q.follow_up,
        unread: q.unread,
        q: q.q,
        labelAny: q.label,
        labelAll: q.label_all,
        after: after ? { activityUs: after.key < 0 ? null : after.key, id: after.id } : undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map((r) => toConversationResponse(r.row)),
        // -1: a conversation without activity (sorted first).
        pagination: { next_cursor: rows.length > limit && last ? encodeCursor(last.activityUs ?? -1, last.row.id) : null, limit },
      };
    },
    async counts(p, q) {
      const rows = await repo.countConversations(db, {
        viewer: viewerOf(p),
        queueId: q.queue_id,
        channelTypeCode: q.channel_type_code,
        q: q.q,
        labelAny: q.label,
        labelAll: q.label_all,
      });
      const zero = () => Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, 0])) as ConversationCountsResponse['all'];
      const result: ConversationCountsResponse = { mine: zero(), unassigned: zero(), all: zero() };
      for (const r of rows) {
        result.mine[r.status] = Number(r.mine);
        result.unassigned[r.status] = Number(r.unassigned);
        result.all[r.status] = Number(r.all);
      }
      return result;
    },
    async get(p, id) {
      return toConversationResponse(await load(p, id));
    },
    async history(p, id, q) {
      await load(p, id);
      const limit = q.limit ?? 50;
      let newer: MessageRow[] = [];
      let before: { ms: number; id: number } | undefined;
      if (q.around !== undefined) {
        if (q.cursor !== undefined) throw validationFailed([{ field: '/querystring/around', message: 'is not allowed with cursor' }]);
        if (q.include_notes === true) throw validationFailed([{ field: '/querystring/around', message: 'is not allowed with include_notes' }]);
        const key = await repo.messageKey(db, p.entityId, id, q.around);
        if (!key) throw notFound('message', q.around);
        newer = (await repo.historyNewer(db, p.entityId, id, Math.floor(limit / 2), key)).reverse();
        // The message itself opens the older part: the keyset is exclusive, so start just above it.
        before = { ms: key.ms, id: key.id + 1 };
      } else {
        const cursor = decodeCursor(q.cursor);
        if (q.include_notes === true && deps.historyWithNotes) {
          const items = await deps.historyWithNotes(db, p.entityId, id, limit + 1, cursor ? { ms: cursor.key, rank: cursor.id } : undefined);
          const page = items.slice(0, limit);
          const last = page.at(-1);
          return {
            data: page.map((i) => (i.kind === 'note' ? toNoteResponse(i.row) : toMessageResponse(i.row))),
            pagination: { next_cursor: items.length > limit && last ? encodeCursor(last.ms, last.rank) : null, limit },
          };
        }
        before = cursor ? { ms: cursor.key, id: cursor.id } : undefined;
      }
      const older = await repo.history(db, p.entityId, id, limit - newer.length + 1, before);
      const rows = [...newer, ...older];
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(toMessageResponse),
        pagination: { next_cursor: rows.length > limit && last ? encodeCursor(last.occurredAtMs, last.id) : null, limit },
      };
    },
    setNotes: (p, id, notes) => update(p, id, { workspaceNotes: notes }, emitConversationUpdated),
    async markRead(p, id) {
      const read = await update(p, id, { unreadCount: 0 }, emitConversationRead);
      await deps.onRead?.(p.entityId, id);
      return read;
    },
    setFollowUp: (p, id, followUp) => update(p, id, { followUp }, emitConversationUpdated),
  };
}
