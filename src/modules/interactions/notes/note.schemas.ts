/** TypeBox schemas of the notes API (issue 50); the note's shape is the history's (`NoteResponse`, conversations room). */
import { Type } from 'typebox';
import { Id } from '../../../platform/http/ids.js';
import { NOTE_MAX_LENGTH, NoteResponse } from '../conversations/index.js';

/** Most media objects one note carries. */
const MAX_ATTACHMENTS = 10;

const Body = Type.String({
  minLength: 1,
  maxLength: NOTE_MAX_LENGTH,
  description: 'Up to 4,096 characters; `@[employee:<id>]` mentions an employee who may see the conversation',
});
const Attachments = Type.Array(Id, { maxItems: MAX_ATTACHMENTS, uniqueItems: true, description: 'Media object ids (media module) of the entity, ready' });

export const NoteCreateBody = Type.Object({ body: Body, attachment_ids: Type.Optional(Attachments) }, { additionalProperties: false });
export const NoteEditBody = Type.Object(
  { body: Type.Optional(Body), attachment_ids: Type.Optional(Attachments) },
  { additionalProperties: false, minProperties: 1 },
);
export const NoteParams = Type.Object({ id: Id, note_id: Id });
export const NoteListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
export const NoteListResponse = Type.Object({
  data: Type.Array(NoteResponse),
  pagination: Type.Object({ next_cursor: Type.Union([Type.String(), Type.Null()]), limit: Type.Integer() }),
});
