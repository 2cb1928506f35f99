import { problemResponse } from '../../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { IdParams } from '../../../platform/http/ids.js';
import {
  CreateEntityChannelAccountBody,
  EntityChannelAccountListQuery,
  EntityChannelAccountListResponse,
  EntityChannelAccountResponse,
  UpdateEntityChannelAccountBody,
} from './entity-channel-account.schemas.js';
import type { EntityChannelAccountService } from './entity-channel-account.service.js';
/** `/entity-channel-accounts` (codes entity_channel_accounts.*). */
export const entityChannelAccountRoutes: FastifyPluginAsyncTypebox<{ service: EntityChannelAccountService }> = async (app, { service }) => {
  const tags = ['records'];
  const auth = (code: string) => ({ auth: code });
  app.get(
    '/entity-channel-accounts',
    {
      config: auth('entity_channel_accounts.view'),
      schema: {
        tags,
        summary: "List the entity's channel accounts",
        querystring: EntityChannelAccountListQuery,
        response: { 200: EntityChannelAccountListResponse },
      },
    },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.get(
    '/entity-channel-accounts/:id',
    {
      config: auth('entity_channel_accounts.view'),
      schema: { tags, summary: 'Channel account detail', params: IdParams, response: { 200: EntityChannelAccountResponse } },
    },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '/entity-channel-accounts',
    {
      config: auth('entity_channel_accounts.create'),
      schema: {
        tags,
        summary: 'Register a channel account',
        body: CreateEntityChannelAccountBody,
        response: {
          201: EntityChannelAccountResponse,
          409: problemResponse('`already_exists`: this platform account is registered (in some entity)'),
          422: problemResponse('`channel_planned`: the channel is planned and takes no accounts yet'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.patch(
    '/entity-channel-accounts/:id',
    {
      config: auth('entity_channel_accounts.edit'),
      schema: {
        tags,
        summary: 'Update a channel account',
        params: IdParams,
        body: UpdateEntityChannelAccountBody,
        response: { 200: EntityChannelAccountResponse },
      },
    },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
};
