import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { createLoginThrottle } from '../../platform/http/login-throttle.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService, type AuthenticatedHook, type AuthService, type ErpLoginBridge } from './auth.service.js';
import type { IdentityService } from '../identity/index.js';
import type { AuditTrail } from '../audit/index.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';

/**
 * Registers `/api/auth/*`; returns the service. `erp` (the ERP session module) adds ERP validation,
 * membership reconciliation and the ERP session to login. COMMUNICATIONS_AUTO_LOGIN_ON_AUTH: the
 * interactions module passes its communications login and webhook re-sync as `onAuthenticated`.
 */
export async function registerAuthModule(
  app: FastifyInstance,
  ctx: AppContext,
  identity: IdentityService,
  audit: AuditTrail,
  erp?: ErpLoginBridge,
  onAuthenticated?: AuthenticatedHook,
): Promise<AuthService> {
  const service = createAuthService({
    identity,
    tokens: ctx.tokens,
    authenticator: ctx.authenticator,
    ...(erp ? { erp } : {}),
    allowFirstLoginPasswordBootstrap: ctx.config.auth.allowFirstLoginPasswordBootstrap,
    ...(onAuthenticated ? { onAuthenticated } : {}),
    log: ctx.log,
    audit: { trail: audit, db: ctx.db },
  });
  await registerRoutes(app, authRoutes, { prefix: '/api/auth', service, throttle: createLoginThrottle({ ...ctx.config.loginRateLimit, redis: ctx.redis }) });
  return service;
}
