import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import type { ConversationService } from './conversation.service.js';
import {
  ConversationCountsQuery,
  ConversationCountsResponse,
  ConversationListQuery,
  ConversationListResponse,
  ConversationResponse,
  FollowUpBody,
  HistoryQuery,
  HistoryResponse,
  IdParams,
  NotesBody,
} from './conversation.schemas.js';

/** `/interactions/conversations` (served bare and under /api). */
export const conversationRoutes: FastifyPluginAsyncTypebox<{ service: ConversationService }> = async (app, { service }) => {
  const tags = ['interactions'];
  const jwt = { auth: 'jwt' as const };
  app.get(
    '/interactions/conversations',
    { config: jwt, schema: { tags, summary: 'Inbox', querystring: ConversationListQuery, response: { 200: ConversationListResponse } } },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.get(
    '/interactions/conversations/counts',
    {
      config: jwt,
      schema: {
        tags,
        summary: 'Inbox tab badges: counts per status (mine, unassigned, all)',
        querystring: ConversationCountsQuery,
        response: { 200: ConversationCountsResponse },
      },
    },
    async (request) => service.counts(principalOf(request), request.query),
  );
  app.get(
    '/interactions/conversations/:id',
    { config: jwt, schema: { tags, summary: 'Conversation detail', params: IdParams, response: { 200: ConversationResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.get(
    '/interactions/conversations/:id/history',
    {
      config: jwt,
      schema: { tags, summary: 'Message history, newest first', params: IdParams, querystring: HistoryQuery, response: { 200: HistoryResponse } },
    },
    async (request) => service.history(principalOf(request), request.params.id, request.query),
  );
  app.patch(
    '/interactions/conversations/:id/workspace-notes',
    { config: jwt, schema: { tags, summary: 'Seller notes', params: IdParams, body: NotesBody, response: { 200: ConversationResponse } } },
    async (request) => service.setNotes(principalOf(request), request.params.id, request.body.workspace_notes),
  );
  app.post(
    '/interactions/conversations/:id/read',
    { config: jwt, schema: { tags, summary: 'Mark as read', params: IdParams, response: { 200: ConversationResponse } } },
    async (request) => service.markRead(principalOf(request), request.params.id),
  );
  app.post(
    '/interactions/conversations/:id/follow-up',
    { config: jwt, schema: { tags, summary: 'Mark (or clear) follow-up', params: IdParams, body: FollowUpBody, response: { 200: ConversationResponse } } },
    async (request) => service.setFollowUp(principalOf(request), request.params.id, request.body?.follow_up ?? true),
  );
};
