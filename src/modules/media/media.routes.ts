import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { problemResponse } from '../../platform/http/openapi.js';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { serviceOrigin as originOf } from '../../platform/http/service-origin.js';
import { SERVED_OBJECT_HEADERS, contentDisposition } from '../../platform/storage/index.js';
import {
  FinalizeUploadBody,
  FinalizeUploadResponse,
  PresignDownloadQuery,
  PresignDownloadResponse,
  PresignUploadBody,
  PresignUploadResponse,
  PublicQuery,
} from './media.schemas.js';
import type { MediaService } from './media.service.js';
import { SERVED_CONTENT_TYPES } from './media.kinds.js';

/**
 * SPEC "Media": `POST /media/presign-upload`, `POST /media/finalize-upload`, `GET /media/presign-download`
 * (any member of the active entity: SPEC names no media permission) and `GET /media/public` (no JWT).
 */
export const mediaRoutes: FastifyPluginAsyncTypebox<{ service: MediaService }> = async (app, { service }) => {
  const tags = ['media'];
  // 400, 401, 404 and 500 come from the shared hook (platform/http/openapi.ts); these are media's own.
  const errors = {
    404: problemResponse('`not_found`: no media object with this key in the active entity'),
    409: problemResponse('`upload_missing`: nothing was uploaded to the presigned URL yet'),
  };
  const presignErrors = {
    403: problemResponse('`media_quota_exceeded`: the entity holds its quota of media bytes'),
    429: problemResponse('`media_upload_limit_reached`: the entity presigned its uploads of the last 24 hours (`Retry-After`)'),
  };
  app.post(
    '/media/presign-upload',
    {
      config: { auth: 'jwt' },
      schema: {
        tags,
        summary: 'Presign an upload (steps 1-2 of the upload flow)',
        body: PresignUploadBody,
        response: { 200: PresignUploadResponse, ...errors, ...presignErrors },
      },
    },
    async (request) => service.presignUpload(principalOf(request), request.body, originOf(request)),
  );
  app.post(
    '/media/finalize-upload',
    {
      config: { auth: 'jwt' },
      schema: {
        tags,
        summary: 'Finalize an upload and start its processing (steps 4-5)',
        body: FinalizeUploadBody,
        response: { 200: FinalizeUploadResponse, ...errors },
      },
    },
    async (request) => service.finalizeUpload(principalOf(request), request.body),
  );
  app.get(
    '/media/presign-download',
    {
      config: { auth: 'jwt' },
      schema: {
        tags,
        summary: 'A temporary signed download URL of a private media object',
        querystring: PresignDownloadQuery,
        response: { 200: PresignDownloadResponse, ...errors },
      },
    },
    async (request) => service.presignDownload(principalOf(request), request.query, originOf(request)),
  );
  app.get(
    '/media/public',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Public content: the optimized version of a ready media object',
        security: [],
        querystring: PublicQuery,
        response: {
          200: {
            description:
              "The optimized bytes in the object's own content type (image/webp, video/mp4, application/pdf, ...; application/octet-stream for a type off today's allow-list), with ETag and a long-lived Cache-Control",
            content: Object.fromEntries(SERVED_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
          },
          304: Type.Null({ description: 'not modified' }),
          404: problemResponse('`not_found`: no ready public object with this key'),
        },
      },
    },
    async (request, reply) => {
      const media = await service.readPublic(request.query.key);
      // Optimized keys are never rewritten (a new version gets a new key, and a finalized original is
      // sealed), so caches may keep them for good.
      void reply.headers(SERVED_OBJECT_HEADERS).header('etag', media.etag).header('cache-control', 'public, max-age=31536000, immutable');
      void reply.header('content-disposition', contentDisposition(media.disposition, media.fileName));
      if (request.headers['if-none-match'] === media.etag) {
        media.body.destroy();
        return reply.status(304).send(null);
      }
      return reply.header('content-type', media.contentType).header('content-length', media.size).send(media.body);
    },
  );
};
