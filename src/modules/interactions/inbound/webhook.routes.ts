import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Id } from '../../../platform/http/ids.js';
import { Type } from 'typebox';
import type { WebhookService } from './webhook.service.js';
import type { OperatorService } from '../intake/index.js';
import { operatorRoute } from '../communications/index.js';
import { principalOf } from '../../../platform/auth/guard.js';
import { badRequest } from '../../../platform/errors.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { storableText } from '../../../platform/http/json-body.js';
import { WebhookBody } from './webhook-body.schemas.js';

const AcceptResponse = Type.Object({ received: Type.Integer(), accepted: Type.Integer(), duplicates: Type.Integer() });
const IntakeItem = Type.Object({
  id: Type.Integer(),
  event_key: Type.String(),
  platform: Type.String(),
  kind: Type.String(),
  account_external_id: Type.String(),
  external_chat_id: Type.Union([Type.String(), Type.Null()]),
  state: Type.String(),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  occurred_at: Type.String({ format: 'date-time' }),
  received_at: Type.String({ format: 'date-time' }),
  event: Type.Unknown(),
});
const IntakeList = Type.Object({
  data: Type.Array(IntakeItem),
  pagination: Type.Object({ next_cursor: Type.Union([Type.String(), Type.Null()]), limit: Type.Integer() }),
});
const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$', description: 'next_cursor of the previous page' })),
});
const RetryBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 500 }) }, { additionalProperties: false });

const storable = (_key: string, value: unknown) => (typeof value === 'string' ? storableText(value) : value);

const FORBIDDEN = problemResponse(
  "`permission_denied` (communications.command_palette.view), or `not_privileged_operator`: the caller's e-mail is not in COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS",
);

/** `/api/interactions/webhooks`: the communications webhook (no JWT, no CORS) and the operator lists. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ service: WebhookService; operator: OperatorService; privilegedEmails: string[] }> = async (
  app,
  { service, operator, privilegedEmails },
) => {
  const tags = ['webhooks'];
  const operatorOnly = operatorRoute(privilegedEmails);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    (request as unknown as { rawBody: Buffer }).rawBody = body;
    try {
      const text = body.toString('utf8');
      // A platform event is never refused for a NUL or a lone surrogate in a text (it would be retried for
      // days): PostgreSQL cannot store either, so each becomes U+FFFD. JSON can only carry them escaped.
      done(null, body.length === 0 ? {} : /\\u(0000|[dD][89a-fA-F])/.test(text) ? JSON.parse(text, storable) : JSON.parse(text));
    } catch {
      done(badRequest('malformed_payload', 'The body is not valid JSON', { pointer: '' }), undefined);
    }
  });
  app.post(
    '/communications',
    {
      // The body is parsed and checked by the service (signature over the raw bytes first); the document
      // still describes it (@fastify/swagger's per-route transform), without a validator in front.
      config: { auth: 'none', swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body: WebhookBody }, url }) },
      schema: {
        tags,
        summary: 'Inbound events from the communications service (WhatsApp, Messenger, Instagram payloads or the canonical format)',
        security: [],
        querystring: Type.Object({
          communications_entity_id: Type.Optional(Type.String({ maxLength: 200 })),
          external_app_id: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: AcceptResponse,
          401: problemResponse('`invalid_signature`: X-Hub-Signature-256 is missing or does not match (when COMMUNICATIONS_WEBHOOK_APP_SECRET is set)'),
          413: problemResponse('`too_many_events`: more events than COMMUNICATIONS_WEBHOOK_MAX_EVENTS in one request (`max_events` says how many are allowed)'),
        },
      },
    },
    async (request) =>
      service.accept({
        rawBody: (request as unknown as { rawBody?: Buffer }).rawBody,
        body: request.body,
        signature: request.headers['x-hub-signature-256'] as string | undefined,
        query: request.query,
      }),
  );
  app.get(
    '/dead-letters',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'Events whose processing failed for good, with their error',
        querystring: ListQuery,
        response: { 200: IntakeList, 403: FORBIDDEN },
      },
    },
    async (request) => operator.list(principalOf(request), 'dead', request.query),
  );
  app.get(
    '/unroutable',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'Valid events whose receiving account belongs to no entity',
        querystring: ListQuery,
        response: { 200: IntakeList, 403: FORBIDDEN },
      },
    },
    async (request) => operator.list(principalOf(request), 'unroutable', request.query),
  );
  app.post(
    '/retry',
    {
      config: operatorOnly,
      schema: {
        tags,
        summary: 'Retry dead-letter or unroutable events now',
        body: RetryBody,
        response: { 200: Type.Object({ requeued: Type.Integer() }), 403: FORBIDDEN },
      },
    },
    async (request) => operator.retry(principalOf(request), request.body.ids),
  );
};
