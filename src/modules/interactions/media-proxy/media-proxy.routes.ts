import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { AppError } from '../../../platform/errors.js';
import type { MediaProxyService } from './media-proxy.service.js';

/** Private to the caller's browser; the bytes of a platform media id never change, so an hour is safe. */
const CACHE_CONTROL = 'private, max-age=3600';

/** `GET /interactions/media/:mediaId` (served bare and under /api). */
export const mediaProxyRoutes: FastifyPluginAsyncTypebox<{ service: MediaProxyService }> = async (app, { service }) => {
  app.get(
    '/interactions/media/:mediaId',
    {
      config: { auth: 'jwt' },
      schema: {
        tags: ['interactions'],
        summary: 'Channel media of a message of the entity, through the service (byte ranges supported)',
        params: Type.Object({ mediaId: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$' }) }),
        headers: Type.Object({ range: Type.Optional(Type.String({ maxLength: 100 })) }),
        response: {
          200: { description: "The media bytes, in the channel platform's content type", content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
          206: { description: 'The requested byte range', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
          416: problemResponse('`range_not_satisfiable`: the range is outside the media (Content-Range: bytes */size)'),
          502: problemResponse('`communications_unavailable`: the communications service could not give the bytes'),
        },
      },
    },
    async (request, reply) => {
      const media = await service.open(principalOf(request), request.params.mediaId, request.headers.range);
      if (media.status === 416) {
        // An error like any other (problem+json), keeping the size the client needs in Content-Range.
        const range = media.headers['content-range'];
        await media.body?.cancel().catch(() => undefined);
        throw new AppError(
          416,
          'range_not_satisfiable',
          'Range not satisfiable',
          'The requested range is outside the media',
          {},
          range ? { 'content-range': range } : {},
        );
      }
      void reply.code(media.status).header('cache-control', CACHE_CONTROL).header('accept-ranges', 'bytes').header('x-content-type-options', 'nosniff');
      for (const [name, value] of Object.entries(media.headers)) void reply.header(name, value);
      if (media.body === null) return reply.send();
      return reply.send(Readable.fromWeb(media.body));
    },
  );
};
