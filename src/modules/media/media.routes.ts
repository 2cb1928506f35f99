import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { problemResponse } from '../../platform/http/openapi.js';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
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

/** Origin of the request, for URLs the service signs and serves itself (embedded store). */
export const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/**
 * SPEC "Media": `POST /media/presign-upload`, `POST /media/finalize-upload`, `GET /media/presign-download`
 * (any member of the active entity: SPEC names no media permission) and `GET /media/public` (no JWT).
 */
export const mediaRoutes: FastifyPluginAsyncTypebox<{ service: MediaService }> = async (app, { service }) => {
  const tags = ['media'];
  // 400, 401, 404 and 500 come from the shared hook (platform/http/openapi.ts); these are media's own.
  const errors = { 409: problemResponse('`upload_missing`: nothing was uploaded to the presigned URL yet') };
  app.post(
    '/media/presign-upload',
    { config: { auth: 'jwt' }, schema: { tags, summary: 'Presign an upload (steps 1-2 of the upload flow)', body: PresignUploadBody, response: { 200: PresignUploadResponse, ...errors } } },
    async (request) => service.presignUpload(principalOf(request), request.body, originOf(request)),
  );
  app.post(
    '/media/finalize-upload',
    { config: { auth: 'jwt' }, schema: { tags, summary: 'Finalize an upload and start its processing (steps 4-5)', body: FinalizeUploadBody, response: { 200: FinalizeUploadResponse, ...errors } } },
    async (request) => service.finalizeUpload(principalOf(request), request.body),
  );
  app.get(
    '/media/presign-download',
    { config: { auth: 'jwt' }, schema: { tags, summary: 'A temporary signed download URL of a private media object', querystring: PresignDownloadQuery, response: { 200: PresignDownloadResponse, ...errors } } },
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
        response: { 200: Type.Unknown({ description: 'the optimized bytes, with ETag and a long-lived Cache-Control' }), 304: Type.Null({ description: 'not modified' }) },
      },
    },
    async (request, reply) => {
      const media = await service.readPublic(request.query.key);
      // Optimized keys are never rewritten (a new version gets a new key), so caches may keep them for good.
      void reply.header('etag', media.etag).header('cache-control', 'public, max-age=31536000, immutable');
      if (request.headers['if-none-match'] === media.etag) {
        media.body.destroy();
        return reply.status(304).send(null);
      }
      return reply.header('content-type', media.contentType).header('content-length', media.size).send(media.body);
    },
  );
};
