import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { IdParams } from '../../../platform/http/ids.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { AddLabelsBody, LabelParams } from '../../labels/index.js';
import { ConversationResponse } from '../conversations/index.js';
import type { ConversationLabels } from './conversation-labels.service.js';

/** `/interactions/conversations/:id/labels` (issue 49): whoever may see the conversation labels it. */
export const conversationLabelRoutes: FastifyPluginAsyncTypebox<{ labels: ConversationLabels }> = async (app, { labels }) => {
  const tags = ['interactions'];
  const config = { auth: 'jwt' as const };
  const missing = problemResponse('`not_found`: the caller may not see the conversation, or a label is not of the caller’s entity');
  app.post(
    '/interactions/conversations/:id/labels',
    {
      config,
      schema: { tags, summary: 'Put labels on a conversation', params: IdParams, body: AddLabelsBody, response: { 200: ConversationResponse, 404: missing } },
    },
    async (request) => labels.add(principalOf(request), request.params.id, request.body.label_ids),
  );
  app.delete(
    '/interactions/conversations/:id/labels/:label_id',
    {
      config,
      schema: {
        tags,
        summary: 'Take a label off a conversation (one it shows from its contact or lead is taken off there)',
        params: LabelParams,
        response: { 200: ConversationResponse, 404: missing },
      },
    },
    async (request) => labels.remove(principalOf(request), request.params.id, [request.params.label_id]),
  );
};
