/**
 * Private notes on conversations (issue 50; docs/api/interactions.md "Private notes"). Whoever may see a
 * conversation reads and writes its notes (conversation-visibility.ts); another's conversation is 404. A note
 * may mention employees (`@[employee:<id>]`): each must be an active employee of the entity who may see the
 * conversation, or the note is refused whole (422 `mention_refused` naming `employee_id` and `reason`). The author
 * edits their note; the author or a `conversations.view_all` holder deletes it (else 403 `note_not_author`).
 * A note is written, announced (`interaction.note.*` to the agents who see it) and published on the bus
 * (`conversation.note_written`, for mentions' notifications) in one change. It never reaches the customer:
 * nothing here sends, and nothing that sends reads notes.
 */
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import { forbidden, notFound, unprocessable } from '../../../platform/errors.js';
import { MAX_ID } from '../../../platform/http/ids.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import { transaction, type PublishingUnitOfWork } from '../../../platform/transactions/transaction.js';
import { decodeCursor, encodeCursor } from '../../../platform/http/keyset-cursor.js';
import {
  getConversation,
  NOTE_MAX_LENGTH,
  toNoteResponse,
  VIEW_ALL,
  viewerOf,
  type Actor,
  type ConversationRow,
  type NoteResponse,
  type NoteRow,
} from '../conversations/index.js';
import { mentionedIn } from './mentions.js';
import { emitNote, emitNoteDeleted } from './note.realtime.js';
import * as repo from './note.repository.js';

/**
 * `conversation.note_written` (issue 50): a note was written or edited. `mentioned_employee_ids` are all the
 * note mentions now (an edit repeats earlier mentions: consumers key their work by note and employee).
 */
interface ConversationNoteWritten {
  type: 'conversation.note_written';
  entity_id: number;
  conversation_id: number;
  note_id: number;
  /** Null when a workflow wrote it. */
  author_employee_id: number | null;
  author_workflow_id: number | null;
  mentioned_employee_ids: number[];
  occurred_at: string;
}

declare module '../../../platform/events/domain-events.js' {
  interface DomainEventMap {
    'conversation.note_written': ConversationNoteWritten;
  }
}

/** Why a mention is refused: not an active employee of the entity (another entity's too), or one who may not see the conversation. */
type MentionRefusal = 'not_a_member' | 'cannot_see_conversation';

export interface ConversationNotes {
  /** The conversation's notes, newest first. */
  list(
    p: Actor,
    conversationId: number,
    q: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<{ data: NoteResponse[]; pagination: { next_cursor: string | null; limit: number } }>;
  /** Writes a note by `p`; 404 for a conversation it may not see, 422 `mention_refused` / `invalid_attachment`. */
  create(p: Actor, conversationId: number, input: { body: string; attachment_ids?: number[] | undefined }): Promise<NoteResponse>;
  /** Edits `p`'s own note (403 `note_not_author` otherwise); mentions and attachments checked as on create. */
  edit(p: Actor, conversationId: number, noteId: number, input: { body?: string | undefined; attachment_ids?: number[] | undefined }): Promise<NoteResponse>;
  /** Deletes the note: its author, or a `conversations.view_all` holder (403 `note_not_author` otherwise). */
  remove(p: Actor, conversationId: number, noteId: number): Promise<void>;
  /** A workflow's `add_note` step: a note authored by workflow `workflowId`, written once per `idempotencyKey`. */
  addByWorkflow(entityId: number, conversationId: number, body: string, by: { workflowId: number; idempotencyKey: string }): Promise<NoteResponse>;
}

export function createConversationNotes(deps: {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  /** The current permissions of active employee `employeeId` of the entity; undefined when it is not one. */
  permissionsOf(entityId: number, employeeId: number): Promise<ReadonlySet<string> | undefined>;
  /** The media objects among `ids` that are the entity's and ready (media module). */
  readyMedia(entityId: number, ids: number[]): Promise<Set<number>>;
}): ConversationNotes {
  const { db } = deps;

  async function visible(tx: Db, p: Actor, conversationId: number, lock: boolean): Promise<ConversationRow> {
    const c = await getConversation(tx, p.entityId, conversationId, lock, viewerOf(p));
    if (!c) throw notFound('conversation', conversationId);
    return c;
  }

  /**
   * The permissions of each employee `body` mentions (undefined: not an active employee of the entity). Read before
   * the note's transaction opens: they come through the identity module on its own connection, and the embedded
   * database has only one.
   */
  async function mentionedPermissions(entityId: number, body: string | undefined): Promise<Map<number, ReadonlySet<string> | undefined>> {
    const found = new Map<number, ReadonlySet<string> | undefined>();
    for (const employeeId of body === undefined ? [] : mentionedIn(body))
      found.set(employeeId, employeeId <= MAX_ID ? await deps.permissionsOf(entityId, employeeId) : undefined);
    return found;
  }

  /** Refuses the first mention that may not be made on `c` (422 `mention_refused`); returns the mentioned ids. */
  async function checkMentions(tx: Db, c: ConversationRow, mentions: Map<number, ReadonlySet<string> | undefined>): Promise<number[]> {
    for (const [employeeId, permissions] of mentions) {
      if (permissions === undefined) throw refused(employeeId, 'not_a_member');
      const viewer = viewerOf({ entityId: c.entityId, employeeId, permissions });
      if (!(await getConversation(tx, c.entityId, c.id, false, viewer))) throw refused(employeeId, 'cannot_see_conversation');
    }
    return [...mentions.keys()];
  }

  async function checkAttachments(entityId: number, ids: number[] | undefined): Promise<number[] | undefined> {
    if (ids === undefined || ids.length === 0) return ids;
    const ready = await deps.readyMedia(entityId, ids);
    const missing = ids.find((id) => !ready.has(id));
    if (missing !== undefined)
      throw unprocessable('invalid_attachment', `Media object ${missing} is not a ready media object of this entity`, { media_id: missing });
    return ids;
  }

  function announce(unit: PublishingUnitOfWork, c: ConversationRow, note: NoteRow, event: 'created' | 'updated'): void {
    emitNote(unit.events, c, note, event);
    unit.events.domainEvent('conversation.note_written', {
      type: 'conversation.note_written',
      entity_id: c.entityId,
      conversation_id: c.id,
      note_id: note.id,
      author_employee_id: note.authorEmployeeId,
      author_workflow_id: note.authorWorkflowId,
      mentioned_employee_ids: note.mentionedEmployeeIds,
      occurred_at: (note.editedAt ?? note.createdAt).toISOString(),
    });
  }

  async function write(
    p: Actor,
    conversationId: number,
    body: string,
    attachmentIds: number[] | undefined,
    workflow?: { workflowId: number; idempotencyKey: string },
  ) {
    const attachments = await checkAttachments(p.entityId, attachmentIds);
    const mentions = await mentionedPermissions(p.entityId, body);
    return transaction(
      db,
      async (unit) => {
        const c = await visible(unit.tx, p, conversationId, false);
        const mentioned = await checkMentions(unit.tx, c, mentions);
        const { row, created } = await repo.insertNote(unit.tx, {
          entityId: p.entityId,
          conversationId,
          authorEmployeeId: p.employeeId,
          authorWorkflowId: workflow?.workflowId ?? null,
          idempotencyKey: workflow?.idempotencyKey ?? null,
          body,
          mentionedEmployeeIds: mentioned,
          attachmentIds: attachments ?? [],
          occurredAtMs: Date.now(),
        });
        if (created) announce(unit, c, row, 'created');
        return toNoteResponse(row);
      },
      deps,
    );
  }

  return {
    async list(p, conversationId, q) {
      await visible(db, p, conversationId, false);
      const limit = q.limit ?? 50;
      const before = decodeCursor(q.cursor);
      const rows = await repo.listNotes(db, p.entityId, conversationId, limit + 1, before ? { ms: before.key, id: before.id } : undefined);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(toNoteResponse),
        pagination: { next_cursor: rows.length > limit && last ? encodeCursor(last.occurredAtMs, last.id) : null, limit },
      };
    },
    create: (p, conversationId, input) => write(p, conversationId, input.body, input.attachment_ids),
    // A rendered template may run past the limit a person's note has: the workflow's note keeps its first 4,096 characters.
    addByWorkflow: (entityId, conversationId, body, by) => write({ entityId, employeeId: null }, conversationId, body.slice(0, NOTE_MAX_LENGTH), undefined, by),
    async edit(p, conversationId, noteId, input) {
      const attachments = await checkAttachments(p.entityId, input.attachment_ids);
      const mentions = await mentionedPermissions(p.entityId, input.body);
      return transaction(
        db,
        async (unit) => {
          const c = await visible(unit.tx, p, conversationId, false);
          const note = await repo.findNote(unit.tx, p.entityId, conversationId, noteId, true);
          if (!note) throw notFound('note', noteId);
          if (p.employeeId === null || note.authorEmployeeId !== p.employeeId) throw notAuthor('edit');
          const mentioned = input.body !== undefined ? await checkMentions(unit.tx, c, mentions) : undefined;
          const row = await repo.updateNote(unit.tx, note.id, {
            ...(input.body !== undefined ? { body: input.body, mentionedEmployeeIds: mentioned! } : {}),
            ...(attachments !== undefined ? { attachmentIds: attachments } : {}),
          });
          announce(unit, c, row, 'updated');
          return toNoteResponse(row);
        },
        deps,
      );
    },
    async remove(p, conversationId, noteId) {
      await transaction(
        db,
        async (unit) => {
          const c = await visible(unit.tx, p, conversationId, false);
          const note = await repo.findNote(unit.tx, p.entityId, conversationId, noteId, true);
          if (!note) throw notFound('note', noteId);
          const own = p.employeeId !== null && note.authorEmployeeId === p.employeeId;
          if (!own && !viewerOf(p).viewAll) throw notAuthor('delete');
          await repo.deleteNote(unit.tx, note.id);
          emitNoteDeleted(unit.events, c, note.id);
        },
        deps,
      );
    },
  };
}

function refused(employeeId: number, reason: MentionRefusal) {
  const why = reason === 'not_a_member' ? 'is not an active employee of this entity' : 'may not see this conversation';
  return unprocessable('mention_refused', `Employee ${employeeId} ${why}: they cannot be mentioned here`, { employee_id: employeeId, reason });
}

function notAuthor(action: 'edit' | 'delete') {
  const who = action === 'edit' ? 'Only its author edits a note' : `Only its author, or a holder of ${VIEW_ALL}, deletes a note`;
  return forbidden('note_not_author', who);
}
