import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { createLoginThrottle } from '../../platform/http/login-throttle.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService, type AuthService, type ErpLoginBridge } from './auth.service.js';
import type { IdentityService } from '../identity/index.js';

/**
 * Registers `/api/auth/*`; returns the service. `erp` (the ERP session module) adds ERP validation,
 * membership reconciliation and the ERP session to login. COMMUNICATIONS_AUTO_LOGIN_ON_AUTH: the
 * communications module passes its auto-login as `onAuthenticated` here (not wired yet).
 */
export async function registerAuthModule(app: FastifyInstance, ctx: AppContext, identity: IdentityService, erp?: ErpLoginBridge): Promise<AuthService> {
  const service = createAuthService({
    identity,
    tokens: ctx.tokens,
    authenticator: ctx.authenticator,
    ...(erp ? { erp } : {}),
    allowFirstLoginPasswordBootstrap: ctx.config.auth.allowFirstLoginPasswordBootstrap,
    autoLoginOnAuth: ctx.config.communications.autoLoginOnAuth,
    log: ctx.log,
  });
  await app.register(authRoutes, { prefix: '/api/auth', service, throttle: createLoginThrottle({ ...ctx.config.loginRateLimit, redis: ctx.redis }) });
  return service;
}
