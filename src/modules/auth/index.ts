import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { createLoginThrottle } from '../../platform/http/login-throttle.js';
import { authRoutes } from './auth.routes.js';
import { createAuthService, type AuthService } from './auth.service.js';

/** Registers `/api/auth/*`; returns the service so other modules (ERP) can extend login. */
export async function registerAuthModule(app: FastifyInstance, ctx: AppContext): Promise<AuthService> {
  const service = createAuthService({ db: ctx.db, tokens: ctx.tokens, authenticator: ctx.authenticator });
  await app.register(authRoutes, { prefix: '/api/auth', service, throttle: createLoginThrottle({ ...ctx.config.loginRateLimit, redis: ctx.redis }) });
  return service;
}
