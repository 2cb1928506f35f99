import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { sendJsonText } from '../../platform/http/json-text.js';
import { SCHEMA_VERSION } from '../../platform/permissions/catalog.js';
import { MeQuery, MeResponse, PermissionListResponse, PermissionSchemaResponse } from './permission.schemas.js';
import type { PermissionService } from './permission.service.js';

const SCHEMA_ETAG = `"${SCHEMA_VERSION}"`;

/** `/api/permissions/*` (SPEC "Permissions"). */
export const permissionRoutes: FastifyPluginAsyncTypebox<{ service: PermissionService }> = async (app, { service }) => {
  app.get(
    '/schema',
    {
      config: { auth: 'jwt' },
      schema: {
        tags: ['permissions'],
        summary: 'Permission schema (labels and groupings)',
        description: 'Strong ETag = schemaVersion; `If-None-Match` answers 304.',
        response: { 200: PermissionSchemaResponse, 304: Type.Null({ description: 'Not modified' }) },
      },
    },
    async (request, reply) => {
      void reply.header('etag', SCHEMA_ETAG).header('cache-control', 'private, no-cache');
      const match = request.headers['if-none-match'];
      if (match !== undefined && match.split(',').some((t) => t.trim() === SCHEMA_ETAG || t.trim() === '*')) {
        return reply.code(304).send(null);
      }
      return service.schema();
    },
  );

  app.get(
    '/me',
    {
      config: { auth: 'jwt' },
      schema: { tags: ['permissions'], summary: "The caller's effective permissions", querystring: MeQuery, response: { 200: MeResponse } },
    },
    async (request, reply) =>
      request.query.explain === true ? service.explainedMe(principalOf(request)) : sendJsonText(reply, service.meText(principalOf(request))),
  );

  app.get(
    '',
    {
      config: { auth: 'permissions.catalog.view' },
      schema: { tags: ['permissions'], summary: 'Stored permission records', response: { 200: PermissionListResponse } },
    },
    async () => service.list(),
  );
};
