/**
 * Route guard. Every route declares `config.auth`: `'none'`, `'jwt'` (any member of the active entity)
 * or a permission code (SPEC "Guarding rules"). Registering a route without it fails at start, so no
 * route is public by accident.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isPermissionCode } from '../permissions/catalog.js';
import { permissionDenied, unauthorized } from '../errors.js';
import type { Authenticator, Principal } from './authenticator.js';
import { bearerToken } from './jwt.js';

type RouteAuth = 'none' | 'jwt' | (string & { readonly __permission?: never });

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /**
     * A further rule of the route on the authenticated caller (an operator allow-list, one of two
     * permissions); it throws 403. Run by the guard in `onRequest`, before any validation, so a caller
     * who may not use the route learns nothing about its parameters or body.
     */
    authorize?: (principal: Principal) => void;
  }
  interface FastifyRequest {
    /** The authenticated caller; null on `auth: 'none'` routes. */
    principal: Principal | null;
  }
}

/** Paths registered by documentation plugins, which carry no `auth` of their own. */
const PUBLIC_PLUGIN_PREFIXES = ['/docs'];

/** The principal of a guarded route; throws 401 when called on an unauthenticated request. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized('unauthenticated', 'Authentication required');
  return request.principal;
}

export const authGuard = fp(
  async (app: FastifyInstance, opts: { authenticator: Authenticator }) => {
    app.decorateRequest('principal', null);
    app.addHook('onRoute', (route) => {
      const auth = route.config?.auth;
      if (auth === undefined) {
        if (PUBLIC_PLUGIN_PREFIXES.some((p) => route.url.startsWith(p)) || route.url === '/openapi.json') {
          route.config = { ...route.config, auth: 'none' };
          return;
        }
        throw new Error(`Route ${String(route.method)} ${route.url} declares no config.auth`);
      }
      if (auth === 'none' && route.config?.authorize) throw new Error(`Route ${String(route.method)} ${route.url} has an authorize rule but no authentication`);
      if (auth !== 'none' && auth !== 'jwt' && !isPermissionCode(auth)) {
        throw new Error(`Route ${String(route.method)} ${route.url} requires unknown permission ${auth}`);
      }
    });
    app.addHook('onRequest', async (request) => {
      const auth = request.routeOptions.config.auth;
      if (auth === undefined || auth === 'none') return;
      const token = bearerToken(request.headers.authorization);
      if (token === undefined) throw unauthorized('unauthenticated', 'A Bearer token is required');
      const principal = await opts.authenticator.authenticate(token);
      request.principal = principal;
      if (auth !== 'jwt' && !principal.permissions.has(auth)) throw permissionDenied(auth);
      request.routeOptions.config.authorize?.(principal);
    });
  },
  { name: 'auth-guard' },
);
