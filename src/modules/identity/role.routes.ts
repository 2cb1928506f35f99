import { problemResponse } from '../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { CreateRoleBody, RoleListResponse, RoleResponse, UpdateRoleBody } from './role.schemas.js';
import type { RoleService } from './role.service.js';

/** `/api/roles` (codes roles.*). */
export const roleRoutes: FastifyPluginAsyncTypebox<{ service: RoleService }> = async (app, { service }) => {
  const tags = ['administration'];
  app.get('', { config: { auth: 'roles.view' }, schema: { tags, summary: 'List roles', response: { 200: RoleListResponse } } }, async (request) =>
    service.list(principalOf(request)),
  );
  app.get(
    '/:id',
    { config: { auth: 'roles.view' }, schema: { tags, summary: 'Role detail', params: IdParams, response: { 200: RoleResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '',
    {
      config: { auth: 'roles.create' },
      schema: {
        tags,
        summary: 'Create a role',
        body: CreateRoleBody,
        response: { 201: RoleResponse, 409: problemResponse('`already_exists`: the entity has a role with this name') },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.patch(
    '/:id',
    {
      config: { auth: 'roles.edit' },
      schema: {
        tags,
        summary: 'Update a role',
        params: IdParams,
        body: UpdateRoleBody,
        response: { 200: RoleResponse, 409: problemResponse('`already_exists`: the entity has a role with this name') },
      },
    },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
};
