/**
 * The endpoints behind the local store's presigned URLs: `PUT` and `GET /media/objects/<key>`, no JWT
 * (the signature is the credential, as with S3). An expired URL answers 403 `url_expired`, a wrong
 * signature or content type 403 `invalid_signature`, a PUT whose upload was already finalized 409
 * `upload_closed` (a finalized object is immutable), a body larger than the signed size 413
 * `upload_too_large`. Bodies stream to and from disk; downloads carry `SERVED_OBJECT_HEADERS`.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, conflict, forbidden } from '../errors.js';
import { LOCAL_OBJECTS_PATH, type LocalGrant, type LocalStorage } from './local.js';
import { ObjectNotFoundError, SERVED_OBJECT_HEADERS, contentDisposition } from './storage.js';

const Query = Type.Object({
  expires: Type.String({ pattern: '^[0-9]{1,12}$' }),
  signature: Type.String({ maxLength: 100 }),
  content_type: Type.String({ maxLength: 200 }),
  size: Type.String({ maxLength: 12 }),
  file_name: Type.String({ maxLength: 300 }),
  disposition: Type.Optional(Type.Union([Type.Literal('inline'), Type.Literal('attachment')])),
});
type QueryT = { expires: string; signature: string; content_type: string; size: string; file_name: string; disposition?: 'inline' | 'attachment' };
const Problem = Type.Object({ code: Type.String(), status: Type.Integer() }, { additionalProperties: true });

function grantOf(request: FastifyRequest, method: 'PUT' | 'GET'): LocalGrant {
  const q = request.query as QueryT;
  const key = (request.params as { '*': string })['*'];
  const grant: LocalGrant = {
    method,
    key,
    expires: q.expires,
    contentType: q.content_type,
    size: q.size,
    fileName: q.file_name,
    disposition: q.disposition ?? '',
  };
  if (Number(q.expires) * 1000 < Date.now()) throw forbidden('url_expired', 'The signed URL has expired');
  return grant;
}

/** Registers the local store's object endpoints (only when the store is local). */
export const localObjectRoutes: FastifyPluginAsync<{ storage: LocalStorage }> = async (app, { storage }) => {
  // Uploads are raw bytes of any type; they stream to disk instead of going through a body parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  const tags = ['media'];

  app.put(
    `${LOCAL_OBJECTS_PATH}/*`,
    {
      config: { auth: 'none' },
      // Presigned URLs are opaque to clients (as S3's are): they come from /media/presign-*, not from the document.
      schema: {
        hide: true,
        tags,
        summary: 'Upload an object to a presigned URL of the embedded store',
        security: [],
        querystring: Query,
        response: { 200: Type.Object({ size: Type.Integer() }), 403: Problem, 409: Problem, 413: Problem },
      },
    },
    async (request) => {
      const grant = grantOf(request, 'PUT');
      const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!storage.verify(grant, (request.query as QueryT).signature) || contentType !== grant.contentType) {
        throw forbidden('invalid_signature', 'The signature does not match the request');
      }
      if (storage.acceptsUpload && !(await storage.acceptsUpload(grant.key))) {
        throw conflict('upload_closed', 'This upload was finalized (or removed): a finalized object cannot be replaced');
      }
      const max = Number(grant.size);
      const declared = Number(request.headers['content-length'] ?? NaN);
      if (declared > max) throw new AppError(413, 'upload_too_large', 'Payload too large', `The URL allows at most ${max} bytes`);
      try {
        return { size: await storage.writeLimited(grant.key, request.raw, max) };
      } catch (err) {
        if (err instanceof RangeError) throw new AppError(413, 'upload_too_large', 'Payload too large', `The URL allows at most ${max} bytes`);
        throw err;
      }
    },
  );

  app.get(
    `${LOCAL_OBJECTS_PATH}/*`,
    {
      config: { auth: 'none' },
      schema: {
        hide: true,
        tags,
        summary: 'Download an object from a presigned URL of the embedded store',
        security: [],
        querystring: Query,
        response: { 200: Type.Unknown({ description: 'the object bytes' }), 403: Problem, 404: Problem },
      },
    },
    async (request, reply) => {
      const grant = grantOf(request, 'GET');
      if (!storage.verify(grant, (request.query as QueryT).signature)) throw forbidden('invalid_signature', 'The signature does not match the request');
      const info = await storage.head(grant.key);
      if (!info) throw new ObjectNotFoundError(grant.key);
      void reply.headers(SERVED_OBJECT_HEADERS);
      void reply.header('content-type', grant.contentType || 'application/octet-stream');
      void reply.header('content-length', info.size);
      void reply.header('cache-control', 'private, max-age=300');
      void reply.header('content-disposition', contentDisposition(grant.disposition === 'inline' ? 'inline' : 'attachment', grant.fileName || undefined));
      return reply.send(await storage.read(grant.key));
    },
  );
};
