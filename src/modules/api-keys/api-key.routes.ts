import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { ApiKeyListResponse, ApiKeyPolicyBody, ApiKeyResponse, CreateApiKeyBody, CreatedApiKeyResponse } from './api-key.schemas.js';
import type { ApiKeys } from './api-key.service.js';

/** `/api/api-keys` (issue 53): people holding `api_keys.manage` administer the entity's keys; keys themselves may not. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeys }> = async (app, { apiKeys }) => {
  const tags = ['api-keys'];
  const config = { auth: 'api_keys.manage' as const, peopleOnly: true };
  const peopleOnly = problemResponse('`api_key_not_allowed`: API keys may not administer keys; or the permission is missing');
  app.get(
    '/api-keys',
    { config, schema: { tags, summary: "The entity's API keys, newest first (secrets never shown)", response: { 200: ApiKeyListResponse, 403: peopleOnly } } },
    async (request) => apiKeys.list(principalOf(request)),
  );
  app.post(
    '/api-keys',
    {
      config,
      schema: {
        tags,
        summary: 'Create an API key; its secret is in this answer only',
        body: CreateApiKeyBody,
        response: {
          201: CreatedApiKeyResponse,
          403: problemResponse('`api_key_exceeds_creator`: a code (or one it implies) the creator lacks; `api_key_not_allowed`'),
          422: problemResponse("`api_key_expiry_required`: the entity's policy requires an expiry"),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await apiKeys.create(principalOf(request), request.body)),
  );
  app.get(
    '/api-keys/policy',
    { config, schema: { tags, summary: "The entity's API key policy", response: { 200: ApiKeyPolicyBody, 403: peopleOnly } } },
    async (request) => apiKeys.policy(principalOf(request)),
  );
  app.put(
    '/api-keys/policy',
    {
      config,
      schema: { tags, summary: 'Allow or forbid API keys that never expire', body: ApiKeyPolicyBody, response: { 200: ApiKeyPolicyBody, 403: peopleOnly } },
    },
    async (request) => apiKeys.setPolicy(principalOf(request), request.body),
  );
  app.get(
    '/api-keys/:id',
    { config, schema: { tags, summary: 'One API key', params: IdParams, response: { 200: ApiKeyResponse, 403: peopleOnly } } },
    async (request) => apiKeys.get(principalOf(request), request.params.id),
  );
  app.post(
    '/api-keys/:id/revoke',
    {
      config,
      schema: {
        tags,
        summary: 'Revoke an API key at once, on every instance (idempotent)',
        params: IdParams,
        response: { 200: ApiKeyResponse, 403: peopleOnly },
      },
    },
    async (request) => apiKeys.revoke(principalOf(request), request.params.id),
  );
};
