import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Value } from 'typebox/value';
import { validationFailed } from '../../../platform/errors.js';
import { principalOf } from '../../../platform/auth/guard.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { IdParams, MessageResponse } from '../conversations/index.js';
import { Id } from '../../../platform/http/ids.js';
import { OUTBOUND_KINDS, type AnyOutboundBody, type OutboundKind } from '../message-kinds/index.js';
import type { OutboundService, Sender } from './outbound.service.js';
import { Type } from 'typebox';
import type { MediaService } from '../../media/index.js';
import { MEDIA_SIZE_LIMITS } from '../../media/index.js';

const MessageParams = Type.Object({ id: Id, messageId: Id });

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
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Repeating a send with the same key (within the entity) answers the message the first one stored, and sends nothing again',
    }),
  ),
});

/** The sender of a request; a client's idempotency key is scoped to its entity (keys also reach the platform). */
function senderOf(
  request: { headers: { 'idempotency-key'?: string | undefined } },
  p: { entityId: number; employeeId: number | null; permissions: ReadonlySet<string> },
): Sender {
  const key = request.headers['idempotency-key'];
  return {
    entityId: p.entityId,
    employeeId: p.employeeId,
    permissions: p.permissions,
    ...(key !== undefined ? { idempotencyKey: `client:${p.entityId}:${key}` } : {}),
  };
}

const TAKEN = problemResponse(
  '`conversation_taken`: the conversation is assigned to another agent, or another agent claimed it first (without `conversations.reply_any` only the assignee answers)',
);

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
            'JSON (a platform media `id`, a `link` or a `media_id`), or `multipart/form-data` with the file in `file` (stored as a media object of the entity, processed, then sent) and the other fields of the JSON body (`caption`, `filename`, `voice`, `reply_to_message_id`) as form fields in any order (`voice` before `file`), checked like the JSON body.',
          params: IdParams,
          headers: SendHeaders,
          // Only JSON bodies are validated here: a multipart request has no parsed body, its fields are checked below.
          body: { content: { 'application/json': { schema: OUTBOUND_KINDS[kind] } } },
          response: { 202: MessageResponse, ...SEND_ERRORS, 409: TAKEN },
        },
      },
      async (request, reply) => {
        const p = principalOf(request);
        let body = request.body as Record<string, unknown>;
        if (request.isMultipart()) {
          // Form fields may come before or after the file: the file streams to storage as it arrives, the
          // fields are checked once the whole request is read (a field is never dropped).
          const schema = OUTBOUND_KINDS[kind];
          const check = (fields: Record<string, unknown>) => {
            if (Value.Check(schema, { ...fields, media_id: 1 })) return;
            const errors = [...Value.Errors(schema, { ...fields, media_id: 1 })].map((e) => ({ field: `/body${e.instancePath}`, message: e.message }));
            throw validationFailed(errors.length > 0 ? errors : [{ field: '/body', message: 'invalid form fields' }]);
          };
          const fields: Record<string, unknown> = {};
          let stored: { id: number } | undefined;
          let voiceAfterFile = false;
          for await (const part of request.parts({ limits: { fileSize: MEDIA_SIZE_LIMITS[kind] } })) {
            if (part.type === 'field') {
              if (part.fieldname === 'file') throw validationFailed([{ field: '/body/file', message: '`file` must be a file, not a text field' }]);
              fields[part.fieldname] = coerceField(part.fieldname, part.value);
              if (part.fieldname === 'voice' && stored) voiceAfterFile = true;
              continue;
            }
            if (part.fieldname !== 'file') {
              part.file.resume();
              throw validationFailed([{ field: `/body/${part.fieldname}`, message: 'the only file part is `file`' }]);
            }
            // The fields read so far are checked before the file is stored; those after it, once all is read.
            try {
              check(fields);
            } catch (error) {
              part.file.resume();
              throw error;
            }
            stored = await media.ingest(p, {
              file: part.file,
              fileName: part.filename || `${kind}`,
              contentType: part.mimetype,
              kind,
              voiceNote: fields.voice === true ? true : undefined,
              truncated: () => part.file.truncated,
            });
          }
          if (!stored) throw validationFailed([{ field: '/body/file', message: 'a multipart send needs the file in `file`' }]);
          check(fields);
          // The file is prepared as a voice note while it streams, so the flag must precede it.
          if (voiceAfterFile && fields.voice === true)
            throw validationFailed([{ field: '/body/voice', message: '`voice` must come before `file` in the form' }]);
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
      {
        config: jwt,
        schema: {
          tags,
          summary: SUMMARY[kind],
          params: IdParams,
          headers: SendHeaders,
          body: OUTBOUND_KINDS[kind],
          response: { 202: MessageResponse, ...SEND_ERRORS, 409: TAKEN },
        },
      },
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
      schema: {
        tags,
        summary: 'Send a failed message again (once)',
        params: MessageParams,
        response: {
          202: MessageResponse,
          409: problemResponse('`message_not_retryable`: not failed, not sent by this service, or already retried; `conversation_taken` (as for a send)'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await service.retry(principalOf(request), request.params.id, request.params.messageId)),
  );
};
