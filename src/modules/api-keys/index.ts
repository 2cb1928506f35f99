/**
 * API keys for integrators (issue 53): the entity's keys, administered by people with `api_keys.manage`,
 * and the loader the authenticator (platform/auth) reads presented keys through. Calls no other module.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';
import { apiKeyRoutes } from './api-key.routes.js';
import type { ApiKeys } from './api-key.service.js';

export { createApiKeys, type ApiKeys } from './api-key.service.js';

/** Registers `/api/api-keys`; `apiKeys` was created before the authenticator, which reads keys through it. */
export async function registerApiKeysModule(app: FastifyInstance, _ctx: AppContext, apiKeys: ApiKeys): Promise<void> {
  await registerRoutes(app, apiKeyRoutes, { prefix: '/api', apiKeys });
}
