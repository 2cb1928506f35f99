import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { ConversationResponse, IdParams } from '../conversations/index.js';
import type { ConversationLifecycle } from './conversation-lifecycle.service.js';

const SnoozeBody = Type.Object(
  { until: Type.String({ format: 'date-time', description: 'When the conversation opens again (future, at most 365 days ahead)' }) },
  { additionalProperties: false },
);

/** `/interactions/conversations/:id/{resolve,reopen,pending,snooze}` (served bare and under /api). */
export const lifecycleRoutes: FastifyPluginAsyncTypebox<{ lifecycle: ConversationLifecycle }> = async (app, { lifecycle }) => {
  const tags = ['interactions'];
  const jwt = { auth: 'jwt' as const };
  const notAllowed = problemResponse('`status_transition_not_allowed`: the action makes no sense from the current status (`conversation_status`, `action`)');
  const lifecycleRoute = (action: 'resolve' | 'reopen' | 'pending', summary: string) =>
    app.post(
      `/interactions/conversations/:id/${action}`,
      { config: jwt, schema: { tags, summary, params: IdParams, response: { 200: ConversationResponse, 409: notAllowed } } },
      async (request) => lifecycle.change(principalOf(request), request.params.id, action),
    );
  lifecycleRoute('resolve', 'Resolve (from open, pending or snoozed)');
  lifecycleRoute('reopen', 'Reopen (from resolved, pending or snoozed)');
  lifecycleRoute('pending', 'Mark pending: waiting on the customer (from open or snoozed)');
  app.post(
    '/interactions/conversations/:id/snooze',
    {
      config: jwt,
      schema: {
        tags,
        summary: 'Snooze until an instant (from open, pending or snoozed)',
        params: IdParams,
        body: SnoozeBody,
        response: {
          200: ConversationResponse,
          409: notAllowed,
          422: problemResponse('`snooze_until_invalid`: `until` is not in the future or more than 365 days ahead'),
        },
      },
    },
    async (request) => lifecycle.change(principalOf(request), request.params.id, 'snooze', new Date(request.body.until)),
  );
};
