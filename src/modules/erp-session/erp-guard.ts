/**
 * The ERP-backed module guard. A route declares `config: { auth: <code or 'jwt'>, erpBacked: true }`;
 * after the auth guard (onRequest) and validation, this preHandler requires a usable ERP session for
 * the caller's scope and hands it to the handler as `request.erpAccess` (SPEC "Errors" 2-3:
 * 428 `erp_session_required`, 409 `erp_entity_mismatch`, 401 `erp_session_invalid`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErpAccess, ErpSessionService } from './erp-session.service.js';
import { scopeOf } from './erp-session.routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks a route that needs a usable ERP session (checked after the auth guard). */
    erpBacked?: boolean;
  }
  interface FastifyRequest {
    /** The caller's ERP access on `erpBacked` routes; null elsewhere. */
    erpAccess: ErpAccess | null;
  }
}

/** Installs the guard on `app` (the root instance, before ERP-backed modules are registered). */
export function installErpGuard(app: FastifyInstance, service: ErpSessionService): void {
  app.decorateRequest('erpAccess', null);
  app.addHook('onRoute', (route) => {
    if (route.config?.erpBacked && (route.config.auth === undefined || route.config.auth === 'none')) {
      throw new Error(`Route ${String(route.method)} ${route.url} is ERP-backed and must require a CRM token`);
    }
  });
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config.erpBacked !== true) return;
    request.erpAccess = await service.requireAccess(scopeOf(request));
  });
}

/** The ERP access of an ERP-backed route's request; throws when the route is not ERP-backed. */
export function erpAccessOf(request: FastifyRequest): ErpAccess {
  if (!request.erpAccess) throw new Error('erpAccessOf called outside an ERP-backed route');
  return request.erpAccess;
}
