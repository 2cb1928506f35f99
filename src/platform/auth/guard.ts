/**
 * Route guard. Every route declares `config.auth`: `'none'`, `'jwt'` (any member of the active entity)
 * or a permission code (SPEC "Guarding rules"). Registering a route without it fails at start, so no
 * route is public by accident.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { isPermissionCode } from '../permissions/catalog.js';
import { badRequest, forbidden, permissionDenied, unauthorized } from '../errors.js';
import type { ApiKeyLimit } from '../http/api-key-limit.js';
import { actorOf, isApiKeySecret, type Authenticator, type PendingPrincipal, type Principal } from './authenticator.js';
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
    /**
     * The route's own statement reads the caller's membership along, one round trip instead of two (issue
     * 29): in `onRequest` the guard only verifies the token and leaves `request.pendingPrincipal`, which the
     * route's service confirms from what its statement read before using any of it. A validation error is
     * held until the principal is confirmed on its own, so that 401/403 still come before 400.
     */
    membershipReadAlong?: boolean;
    /**
     * Only people may use the route (issue 53): logging in, changing entity, administering API keys. An API
     * key presented on it is refused with 403 `api_key_not_allowed`, whatever its codes.
     */
    peopleOnly?: boolean;
  }
  interface FastifyRequest {
    /** The authenticated caller; null on `auth: 'none'` routes, and on `membershipReadAlong` routes until confirmed. */
    principal: Principal | null;
    /** The verified caller of a `membershipReadAlong` route, whose principal the route confirms; null elsewhere. */
    pendingPrincipal: PendingPrincipal | null;
  }
}

/** Paths registered by documentation plugins, which carry no `auth` of their own. */
const PUBLIC_PLUGIN_PREFIXES = ['/docs'];

/** The principal of a guarded route; throws 401 when called on an unauthenticated request. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized('unauthenticated', 'Authentication required');
  return request.principal;
}

/**
 * The caller of a `membershipReadAlong` route, to be confirmed from what the route's statement reads (see
 * `PendingPrincipal`); throws 401 elsewhere.
 */
export function pendingPrincipalOf(request: FastifyRequest): PendingPrincipal {
  if (!request.pendingPrincipal) throw unauthorized('unauthenticated', 'Authentication required');
  return request.pendingPrincipal;
}

/** `principal` as the caller of `request`, once it passes the route's permission and `authorize` rule (403 otherwise). */
function admitted(request: FastifyRequest, principal: Principal): Principal {
  const { auth, authorize } = request.routeOptions.config;
  request.principal = principal;
  if (auth !== 'jwt' && auth !== undefined && !principal.permissions.has(auth)) throw permissionDenied(auth);
  authorize?.(principal);
  return principal;
}

/** A query string carrying an API key secret (`...=crm_...`): refused, since URLs end up in logs and histories. */
const KEY_IN_QUERY = /[?&][^=&]*=crm_/;

function bearerOf(request: FastifyRequest): string {
  const token = bearerToken(request.headers.authorization);
  if (token === undefined) throw unauthorized('unauthenticated', 'A Bearer token is required');
  return token;
}

export const authGuard = fp(
  async (app: FastifyInstance, opts: { authenticator: Authenticator; apiKeyLimit: ApiKeyLimit }) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('pendingPrincipal', null);
    /** On `membershipReadAlong` routes: a held validation error, answered once the caller is confirmed on its own. */
    const answerHeldValidation: preHandlerAsyncHookHandler = async (request) => {
      if (!request.validationError) return;
      // An API key's principal was admitted in `onRequest` already.
      if (!request.principal) admitted(request, await opts.authenticator.authenticate(bearerOf(request)));
      throw request.validationError;
    };

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
      if (route.config?.membershipReadAlong) {
        if (auth === 'none') throw new Error(`Route ${String(route.method)} ${route.url} reads a membership along but has no authentication`);
        // Validation runs before the route's statement confirms the caller: its error waits for the principal.
        route.attachValidation = true;
        const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
        route.preHandler = [answerHeldValidation, ...own] as typeof route.preHandler;
      }
    });

    app.addHook('onRequest', async (request, reply) => {
      const { auth, membershipReadAlong, peopleOnly } = request.routeOptions.config;
      if (request.url.includes('crm_') && KEY_IN_QUERY.test(request.url))
        throw badRequest('api_key_in_query', 'API keys are accepted only in the Authorization header (Bearer), never in the URL');
      const presented = bearerToken(request.headers.authorization);
      if (presented !== undefined && isApiKeySecret(presented)) {
        if (peopleOnly) throw forbidden('api_key_not_allowed', 'Only people may use this route, not API keys');
        if (auth === undefined || auth === 'none') return;
        const principal = await opts.authenticator.authenticateApiKey(presented);
        // Every line of the request, "request completed" included (written through reply.log), names the key.
        request.log = reply.log = request.log.child({ actor: actorOf(principal) });
        void reply.headers(await opts.apiKeyLimit.consume(principal.apiKeyId!));
        admitted(request, principal);
        // The key's principal is already read and admitted: the route's statement confirms nothing more.
        if (membershipReadAlong) request.pendingPrincipal = { userId: principal.userId, entityId: principal.entityId, confirm: async () => principal };
        return;
      }
      if (auth === undefined || auth === 'none') return;
      const token = bearerOf(request);
      if (membershipReadAlong) {
        const claims = await opts.authenticator.verify(token);
        request.pendingPrincipal = {
          userId: claims.id,
          entityId: claims.entity_id,
          confirm: async (text) => admitted(request, await opts.authenticator.admit(claims, text)),
        };
        return;
      }
      admitted(request, await opts.authenticator.authenticate(token));
    });
  },
  { name: 'auth-guard' },
);
