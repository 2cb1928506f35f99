import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { CreateGroupBody, GroupListQuery, GroupListResponse, GroupResponse, UpdateGroupBody } from './group.schemas.js';
import type { GroupService } from './group.service.js';

/** `/groups` (codes groups.*). */
export const groupRoutes: FastifyPluginAsyncTypebox<{ service: GroupService }> = async (app, { service }) => {
  const tags = ['records'];
  app.get(
    '/groups',
    { config: { auth: 'groups.view' }, schema: { tags, summary: 'List groups', querystring: GroupListQuery, response: { 200: GroupListResponse } } },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.get(
    '/groups/:id',
    { config: { auth: 'groups.view' }, schema: { tags, summary: 'Group detail', params: IdParams, response: { 200: GroupResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '/groups',
    { config: { auth: 'groups.create' }, schema: { tags, summary: 'Create a group', body: CreateGroupBody, response: { 201: GroupResponse } } },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.patch(
    '/groups/:id',
    { config: { auth: 'groups.edit' }, schema: { tags, summary: 'Update a group', params: IdParams, body: UpdateGroupBody, response: { 200: GroupResponse } } },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
};
