import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { IdParams, MessageResponse } from './conversation.schemas.js';
import { MessageParams, OUTBOUND_KINDS, type AnyOutboundBody, type OutboundKind } from './outbound.schemas.js';
import type { OutboundService } from './outbound.service.js';

const SUMMARY: Record<OutboundKind, string> = {
  text: 'Send a text message',
  image: 'Send an image (platform media id, link or media object)',
  video: 'Send a video',
  audio: 'Send an audio or voice note',
  document: 'Send a document',
  sticker: 'Send a sticker (WhatsApp)',
  location: 'Send a location (WhatsApp)',
  contacts: 'Send contact cards (WhatsApp)',
  reaction: 'React to a message of the conversation',
  template: 'Send a template (allowed outside the service window)',
  'interactive/button': 'Send reply buttons',
  'interactive/list': 'Send a list (WhatsApp)',
  'interactive/cta-url': 'Send a call-to-action URL button (WhatsApp)',
  'interactive/cta-url-image': 'Send a call-to-action URL button with an image header (WhatsApp)',
};

const SEND_ERRORS = {
  422: problemResponse(
    '`outside_service_window` (with `closed_at`): only templates after 24 h without a customer message; `unsupported_message_type`: the channel cannot carry this kind; `unsupported_media_source`; `channel_account_inactive`; `communications_not_configured`',
  ),
};

/**
 * `POST /interactions/conversations/:id/messages/<kind>` for every kind of `OUTBOUND_KINDS` and
 * `.../messages/:messageId/retry` (served bare and under /api). Answers 202 with the stored `pending`
 * message; its delivery statuses follow on the sockets (`interaction.message.status`).
 */
export const outboundRoutes: FastifyPluginAsyncTypebox<{ service: OutboundService }> = async (app, { service }) => {
  const tags = ['interactions'];
  const jwt = { auth: 'jwt' as const };
  for (const kind of Object.keys(OUTBOUND_KINDS) as OutboundKind[]) {
    app.post(
      `/interactions/conversations/:id/messages/${kind}`,
      { config: jwt, schema: { tags, summary: SUMMARY[kind], params: IdParams, body: OUTBOUND_KINDS[kind], response: { 202: MessageResponse, ...SEND_ERRORS } } },
      async (request, reply) => {
        const p = principalOf(request);
        const message = await service.send({ entityId: p.entityId, employeeId: p.employeeId }, request.params.id, { kind, body: request.body } as AnyOutboundBody);
        return reply.code(202).send(message);
      },
    );
  }
  app.post(
    '/interactions/conversations/:id/messages/:messageId/retry',
    {
      config: jwt,
      schema: { tags, summary: 'Send a failed message again (once)', params: MessageParams, response: { 202: MessageResponse, 409: problemResponse('`message_not_retryable`: not failed, not sent by this service, or already retried') } },
    },
    async (request, reply) => reply.code(202).send(await service.retry(principalOf(request).entityId, request.params.id, request.params.messageId)),
  );
};
