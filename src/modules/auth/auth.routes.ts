import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import type { LoginThrottle } from '../../platform/http/login-throttle.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { ChangeEntityBody, LoginBody, MyEntitiesResponse, TokenResponse } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

export interface AuthRoutesOptions {
  service: AuthService;
  throttle: LoginThrottle;
}

/** `/api/auth/*` routes (SPEC "Authentication and session"). */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { service, throttle }) => {
  app.post(
    '/login',
    {
      config: { auth: 'none', peopleOnly: true },
      preHandler: async (request) => throttle.consume(request.ip, request.body.email),
      schema: {
        tags: ['auth'],
        summary: 'Log in to an entity',
        description: 'Rate-limited per (e-mail, client address) and per client address, never per e-mail alone (429 with Retry-After).',
        security: [],
        body: LoginBody,
        response: {
          200: TokenResponse,
          401: problemResponse('`invalid_credentials`: unknown e-mail or wrong password'),
          403: problemResponse('`entity_not_allowed`: the user is not a member of the entity'),
          429: problemResponse('`rate_limited`: too many attempts; retry after `Retry-After` seconds'),
        },
      },
    },
    async (request) => {
      const response = await service.login(request.body);
      await throttle.succeeded(request.ip, request.body.email);
      return response;
    },
  );

  app.post(
    '/change-entity',
    {
      config: { auth: 'jwt', peopleOnly: true },
      schema: {
        tags: ['auth'],
        summary: 'Switch the active entity',
        body: ChangeEntityBody,
        response: { 200: TokenResponse, 403: problemResponse('`entity_not_allowed`: the user is not a member of the entity') },
      },
    },
    async (request) => service.changeEntity(principalOf(request), request.body.entity_id),
  );

  app.get(
    '/my-entities',
    { config: { auth: 'jwt', peopleOnly: true }, schema: { tags: ['auth'], summary: "The caller's entities", response: { 200: MyEntitiesResponse } } },
    async (request) => service.myEntities(principalOf(request)),
  );
};
