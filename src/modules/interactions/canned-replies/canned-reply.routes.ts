import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { IdParams, MessageResponse } from '../conversations/index.js';
import {
  CannedReplyListQuery,
  CannedReplyListResponse,
  CannedReplyResponse,
  CreateCannedReplyBody,
  RenderCannedReplyBody,
  RenderedCannedReply,
  UpdateCannedReplyBody,
} from './canned-reply.schemas.js';
import type { CannedReplies } from './canned-reply.service.js';

/** `/interactions/canned-replies` (served bare and under /api). */
export const cannedReplyRoutes: FastifyPluginAsyncTypebox<{ replies: CannedReplies }> = async (app, { replies }) => {
  const tags = ['interactions'];
  const config = { auth: 'jwt' as const };
  const forbidden = problemResponse("`permission_denied`: queue and entity replies need `canned_replies.manage`; a personal one is its owner's");
  const taken = problemResponse('`shortcode_taken`: the shortcode is used by another reply of the same scope');
  app.get(
    '/interactions/canned-replies',
    {
      config,
      schema: {
        tags,
        summary: 'The canned replies the caller may use, searched and ranked',
        querystring: CannedReplyListQuery,
        response: { 200: CannedReplyListResponse },
      },
    },
    async (request) => replies.list(principalOf(request), request.query),
  );
  app.post(
    '/interactions/canned-replies',
    {
      config,
      schema: {
        tags,
        summary: 'Save a canned reply',
        body: CreateCannedReplyBody,
        response: {
          201: CannedReplyResponse,
          403: forbidden,
          404: problemResponse("`not_found`: `queue_id` is not a queue of the caller's entity"),
          409: taken,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await replies.create(principalOf(request), request.body)),
  );
  app.get(
    '/interactions/canned-replies/:id',
    { config, schema: { tags, summary: 'One canned reply the caller may use', params: IdParams, response: { 200: CannedReplyResponse } } },
    async (request) => replies.get(principalOf(request), request.params.id),
  );
  app.patch(
    '/interactions/canned-replies/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Change a canned reply',
        params: IdParams,
        body: UpdateCannedReplyBody,
        response: { 200: CannedReplyResponse, 403: forbidden, 409: taken },
      },
    },
    async (request) => replies.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/interactions/canned-replies/:id',
    { config, schema: { tags, summary: 'Delete a canned reply', params: IdParams, response: { 204: Type.Null(), 403: forbidden } } },
    async (request, reply) => {
      await replies.remove(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/interactions/canned-replies/:id/render',
    {
      config,
      schema: {
        tags,
        summary: 'Fill a canned reply for one conversation: the text, what is missing, what to ask the agent, what would be sent',
        params: IdParams,
        body: RenderCannedReplyBody,
        response: { 200: RenderedCannedReply },
      },
    },
    async (request) => replies.render(principalOf(request), request.params.id, request.body),
  );
  app.post(
    '/interactions/canned-replies/:id/send',
    {
      config,
      schema: {
        tags,
        summary:
          'Send a canned reply into a conversation through the send path: its text, then one message per attachment (or its template outside the window)',
        params: IdParams,
        body: RenderCannedReplyBody,
        response: {
          202: Type.Object({ sent: Type.Union([Type.Literal('text'), Type.Literal('template')]), messages: Type.Array(MessageResponse) }),
          409: problemResponse('`conversation_taken`: as the send endpoints'),
          422: problemResponse(
            "`canned_reply_incomplete` (with `missing` and `prompts`): a variable has no value or a prompt no answer; `outside_service_window` and the send endpoints' other 422s",
          ),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await replies.send(principalOf(request), request.params.id, request.body)),
  );
};
