import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { IdParams } from '../../../platform/http/ids.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { NoteResponse } from '../conversations/index.js';
import type { ConversationNotes } from './note.service.js';
import { NoteCreateBody, NoteEditBody, NoteListQuery, NoteListResponse, NoteParams } from './note.schemas.js';

/** `/interactions/conversations/:id/notes` (issue 50): private notes, for whoever may see the conversation. */
export const noteRoutes: FastifyPluginAsyncTypebox<{ notes: ConversationNotes }> = async (app, { notes }) => {
  const tags = ['interactions'];
  const config = { auth: 'jwt' as const };
  const missing = problemResponse('`not_found`: the caller may not see the conversation (another entity’s too), or no such note on it');
  const refused = problemResponse(
    '`mention_refused` (`employee_id`, `reason`: `not_a_member` or `cannot_see_conversation`) or `invalid_attachment` (`media_id`): nothing stored',
  );
  const notAuthor = problemResponse('`note_not_author`: only the author edits; the author or a `conversations.view_all` holder deletes');
  app.get(
    '/interactions/conversations/:id/notes',
    {
      config,
      schema: {
        tags,
        summary: 'Private notes of a conversation, newest first',
        params: IdParams,
        querystring: NoteListQuery,
        response: { 200: NoteListResponse, 404: missing },
      },
    },
    async (request) => notes.list(principalOf(request), request.params.id, request.query),
  );
  app.post(
    '/interactions/conversations/:id/notes',
    {
      config,
      schema: {
        tags,
        summary: 'Write a private note (never sent to the customer); mentions as `@[employee:<id>]`',
        params: IdParams,
        body: NoteCreateBody,
        response: { 201: NoteResponse, 404: missing, 422: refused },
      },
    },
    async (request, reply) => reply.code(201).send(await notes.create(principalOf(request), request.params.id, request.body)),
  );
  app.patch(
    '/interactions/conversations/:id/notes/:note_id',
    {
      config,
      schema: {
        tags,
        summary: 'Edit one’s own note',
        params: NoteParams,
        body: NoteEditBody,
        response: { 200: NoteResponse, 403: notAuthor, 404: missing, 422: refused },
      },
    },
    async (request) => notes.edit(principalOf(request), request.params.id, request.params.note_id, request.body),
  );
  app.delete(
    '/interactions/conversations/:id/notes/:note_id',
    {
      config,
      schema: {
        tags,
        summary: 'Delete a note',
        params: NoteParams,
        response: { 204: Type.Null({ description: 'Deleted; no body' }), 403: notAuthor, 404: missing },
      },
    },
    async (request, reply) => {
      await notes.remove(principalOf(request), request.params.id, request.params.note_id);
      return reply.code(204).send(null);
    },
  );
};
