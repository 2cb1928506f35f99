/**
 * The socket events of private notes (issue 50) on namespace /interactions, agents only: a note is never
 * emitted to a website chat visitor (`/widget`) nor sent on any channel. Each reaches the agents who see the
 * conversation (its rooms, like a message).
 */
import { Type, type Static } from 'typebox';
import { defineServerEvent, type RealtimeEmitter } from '../../../platform/realtime/events.js';
import { conversationRooms, NoteResponse, toNoteResponse, type ConversationRow, type NoteRow } from '../conversations/index.js';

const NotePayload = Type.Object({ conversation_id: Type.Integer(), note: NoteResponse });
const NoteDeletedPayload = Type.Object({ conversation_id: Type.Integer(), note_id: Type.Integer() });

declare module '../../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'interaction.note.created': (payload: Static<typeof NotePayload>) => void;
    'interaction.note.updated': (payload: Static<typeof NotePayload>) => void;
    'interaction.note.deleted': (payload: Static<typeof NoteDeletedPayload>) => void;
  }
}

defineServerEvent('interaction.note.created', NotePayload);
defineServerEvent('interaction.note.updated', NotePayload);
defineServerEvent('interaction.note.deleted', NoteDeletedPayload);

/** `interaction.note.created` / `updated`: a note of `c` was written or edited. */
export function emitNote(to: RealtimeEmitter, c: ConversationRow, note: NoteRow, event: 'created' | 'updated'): void {
  const payload = { conversation_id: c.id, note: toNoteResponse(note) };
  if (event === 'created') to.toEntity(c.entityId, 'interaction.note.created', payload, conversationRooms(c));
  else to.toEntity(c.entityId, 'interaction.note.updated', payload, conversationRooms(c));
}

/** `interaction.note.deleted`: note `noteId` of `c` was deleted. */
export function emitNoteDeleted(to: RealtimeEmitter, c: ConversationRow, noteId: number): void {
  to.toEntity(c.entityId, 'interaction.note.deleted', { conversation_id: c.id, note_id: noteId }, conversationRooms(c));
}
