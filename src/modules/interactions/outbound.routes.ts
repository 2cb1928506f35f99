import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Value } from 'typebox/value';
import { validationFailed } from '../../platform/errors.js';
import { principalOf } from '../../platform/auth/guard.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { IdParams, MessageResponse } from './conversation.schemas.js';
import { MessageParams, OUTBOUND_KINDS, type AnyOutboundBody, type OutboundKind } from './outbound.schemas.js';
import type { OutboundService, Sender } from './outbound.service.js';
import { Type } from 'typebox';
import type { MediaService } from '../media/index.js';
import { MEDIA_SIZE_LIMITS } from '../media/index.js';

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

/** The kinds SPEC sends as multipart (they also take JSON). */
const MULTIPART_KINDS = ['image', 'video', 'audio', 'document'] as const;
/** The largest file any kind accepts (documents, 100 MB); each route applies its kind's limit. */
const MAX_UPLOAD_BYTES = Math.max(...Object.values(MEDIA_SIZE_LIMITS));

/** What the sending routes need of the media module: storing a file received in a request. */
export type MediaIngest = Pick<MediaService, 'ingest'>;

/** Form fields are text: the JSON body's number (`reply_to_message_id`) and boolean (`voice`) are read back from it. */
function coerceField(name: string, value: unknown): unknown {
  if (name === 'voice' && (value === 'true' || value === 'false')) return value === 'true';
  if (name === 'reply_to_message_id' && typeof value === 'string' && /^[0-9]{1,10}$/.test(value)) return Number(value);
  return value;
}

const SendHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Repeating a send with the same key (within the entity) answers the message the first one stored, and sends nothing again' }),
  ),
});

/** The sender of a request; a client's idempotency key is scoped to its entity (keys also reach the platform). */
function senderOf(request: { headers: { 'idempotency-key'?: string | undefined } }, p: { entityId: number; employeeId: number | null }): Sender {
  const key = request.headers['idempotency-key'];
  return { entityId: p.entityId, employeeId: p.employeeId, ...(key !== undefined ? { idempotencyKey: `client:${p.entityId}:${key}` } : {}) };
}

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
export const outboundRoutes: FastifyPluginAsyncTypebox<{ service: OutboundService; media: MediaIngest }> = async (app, { service, media }) => {
  const tags = ['interactions'];
  const jwt = { auth: 'jwt' as const };
  // One file per request, streamed (never buffered whole); the kind's own limit is applied per route.
  await app.register(multipart, { limits: { files: 1, fields: 10, fieldSize: 4096, fileSize: MAX_UPLOAD_BYTES } });
  for (const kind of MULTIPART_KINDS) {
    app.post(
      `/interactions/conversations/:id/messages/${kind}`,
      {
        config: jwt,
        schema: {
          tags,
          summary: SUMMARY[kind],
          description:
            'JSON (a platform media `id`, a `link` or a `media_id`), or `multipart/form-data` with the file in `file` (stored as a media object of the entity, processed, then sent) and the other fields of the JSON body (`caption`, `filename`, `voice`, `reply_to_message_id`) as form fields, checked like the JSON body.',
          params: IdParams,
          headers: SendHeaders,
          // Only JSON bodies are validated here: a multipart request has no parsed body, its fields are checked below.
          body: { content: { 'application/json': { schema: OUTBOUND_KINDS[kind] } } },
          response: { 202: MessageResponse, ...SEND_ERRORS },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        let body = request.body as Record<string, unknown>;
        if (request.isMultipart()) {
          const part = await request.file({ limits: { fileSize: MEDIA_SIZE_LIMITS[kind] } });
          if (!part) throw validationFailed([{ field: '/body/file', message: 'a multipart send needs the file in `file`' }]);
          const fields = Object.fromEntries(
            Object.entries(part.fields)
              .filter(([name, f]) => name !== 'file' && f !== undefined && !Array.isArray(f) && f.type === 'field')
              .map(([name, f]) => [name, coerceField(name, (f as { value: unknown }).value)]),
          );
          const schema = OUTBOUND_KINDS[kind];
          if (!Value.Check(schema, { ...fields, media_id: 1 })) {
            const errors = [...Value.Errors(schema, { ...fields, media_id: 1 })].map((e) => ({ field: `/body${e.instancePath}`, message: e.message }));
            part.file.resume();
            throw validationFailed(errors.length > 0 ? errors : [{ field: '/body', message: 'invalid form fields' }]);
          }
          const stored = await media.ingest(p, { file: part.file, fileName: part.filename || `${kind}`, contentType: part.mimetype, kind, voiceNote: fields.voice === true ? true : undefined, truncated: () => part.file.truncated });
          body = { ...fields, media_id: stored.id };
        }
        const message = await service.send(senderOf(request, p), request.params.id, { kind, body });
        return reply.code(202).send(message);
      },
    );
  }
  for (const kind of (Object.keys(OUTBOUND_KINDS) as OutboundKind[]).filter((k) => !(MULTIPART_KINDS as readonly string[]).includes(k))) {
    app.post(
      `/interactions/conversations/:id/messages/${kind}`,
      { config: jwt, schema: { tags, summary: SUMMARY[kind], params: IdParams, headers: SendHeaders, body: OUTBOUND_KINDS[kind], response: { 202: MessageResponse, ...SEND_ERRORS } } },
      async (request, reply) => {
        const p = principalOf(request);
        const message = await service.send(senderOf(request, p), request.params.id, { kind, body: request.body } as AnyOutboundBody);
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
