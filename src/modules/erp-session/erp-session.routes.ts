import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { ErpSessionSnapshot } from './erp-session.schemas.js';
import { SyncBody } from './erp-session.schemas.js';
import type { ErpSessionService } from './erp-session.service.js';
import type { ErpSessionScope } from './erp-session.repository.js';

/** The caller's ERP session scope: (user, active entity, client kind) from the CRM token. */
export function scopeOf(request: FastifyRequest): ErpSessionScope {
  const p = principalOf(request);
  return { userId: p.userId, entityId: p.entityId, clientKind: p.clientKind };
}

/** `/api/auth/erp-session*` (SPEC "Authentication and session"). */
export const erpSessionRoutes: FastifyPluginAsyncTypebox<{ service: ErpSessionService }> = async (app, { service }) => {
  const response = { 200: ErpSessionSnapshot };
  // '' (not '/') so the path is exactly /api/auth/erp-session.
  app.get(
    '',
    { config: { auth: 'jwt', peopleOnly: true }, schema: { tags: ['auth'], summary: 'The ERP session snapshot (never the GraphQL JWT)', response } },
    async (request) => service.snapshot(scopeOf(request)),
  );
  app.post(
    '/sync',
    {
      config: { auth: 'jwt', peopleOnly: true },
      // A sync without a body is valid: the stored credentials are used.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: { tags: ['auth'], summary: 'Force a server-side reconcile of the ERP session', body: SyncBody, response },
    },
    async (request) => service.sync(scopeOf(request), principalOf(request).email, request.body?.erp_access_token),
  );
  app.delete(
    '',
    { config: { auth: 'jwt', peopleOnly: true }, schema: { tags: ['auth'], summary: 'Clear the ERP session (the CRM token stays valid)', response } },
    async (request) => service.clear(scopeOf(request)),
  );
};
