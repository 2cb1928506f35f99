/**
 * The ERP-backed module guard. A route declares `config: { auth: <code or 'jwt'>, erpBacked: true }`;
 * after the auth guard (onRequest) and validation, this preHandler requires a usable ERP session for
 * the caller's scope and hands it to the handler as `request.erpAccess` (SPEC "Errors" 2-3:
 * 428 `erp_session_required`, 409 `erp_entity_mismatch`, 401 `erp_session_invalid`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErpAccess, ErpSessionService } from './erp-session.service.js';
import { scopeOf } from './erp-session.routes.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { ERP_SESSION_PROBLEM_ID, ErpSessionProblem } from './erp-session.schemas.js';

/** The answers of an ERP-backed operation besides its own (SPEC "Errors" 2-3), as the document lists them. */
const ERP_RESPONSES = {
  401: problemResponse(
    'Missing or invalid CRM token, or `erp_session_invalid`: the ERP rejected the stored credentials (body: `erp_session`, `reconcile`)',
    ERP_SESSION_PROBLEM_ID,
  ),
  409: problemResponse(
    '`erp_entity_mismatch`: the entity selected in the ERP is not the active CRM entity (body: `erp_session`, `reconcile`)',
    ERP_SESSION_PROBLEM_ID,
  ),
  428: problemResponse(
    '`erp_session_required`: the ERP session is missing or expired; sync it, then retry (body: `erp_session`, `reconcile`)',
    ERP_SESSION_PROBLEM_ID,
  ),
  502: problemResponse('`erp_invalid_response`: the ERP answered outside its contract'),
  503: problemResponse('`erp_unavailable`: the ERP did not answer in time'),
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks a route that needs a usable ERP session (checked after the auth guard). */
    erpBacked?: boolean;
    /**
     * A check of the CRM side run after validation and before the ERP session is required (the path's
     * record exists in the caller's entity), so a missing record answers 404, not 428/409.
     */
    beforeErp?: (request: FastifyRequest) => Promise<void>;
    /**
     * The route's service asks the ERP itself (catalogs, the catalog in a chat): no guard, but its answers
     * include the ERP session errors, which the OpenAPI document then lists as for `erpBacked` routes.
     */
    erpErrors?: boolean;
  }
  interface FastifyRequest {
    /** The caller's ERP access on `erpBacked` routes; null elsewhere. */
    erpAccess: ErpAccess | null;
  }
}

/** Installs the guard on `app` (the root instance, before ERP-backed modules are registered). */
export function installErpGuard(app: FastifyInstance, service: ErpSessionService): void {
  app.decorateRequest('erpAccess', null);
  app.addSchema(ErpSessionProblem);
  app.addHook('onRoute', (route) => {
    if (route.config?.erpBacked && (route.config.auth === undefined || route.config.auth === 'none')) {
      throw new Error(`Route ${String(route.method)} ${route.url} is ERP-backed and must require a CRM token`);
    }
    // Runs after the OpenAPI conventions filled in the shared errors: the ERP's own answers replace them.
    if ((route.config?.erpBacked || route.config?.erpErrors) && route.schema && !route.schema.hide) {
      const own = (route.schema.response ?? {}) as Record<string, unknown>;
      route.schema = { ...route.schema, response: { ...own, ...ERP_RESPONSES, ...pick(own, ['409', '502', '503']) } };
    }
  });
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config.erpBacked !== true) return;
    await request.routeOptions.config.beforeErp?.(request);
    request.erpAccess = await service.requireAccess(scopeOf(request));
  });
}

function pick(from: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in from).map((key) => [key, from[key]]));
}

/** The ERP access of an ERP-backed route's request; throws when the route is not ERP-backed. */
export function erpAccessOf(request: FastifyRequest): ErpAccess {
  if (!request.erpAccess) throw new Error('erpAccessOf called outside an ERP-backed route');
  return request.erpAccess;
}
