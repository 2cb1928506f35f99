import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { IdParams } from '../../../platform/http/ids.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { TemplateCreateBody, TemplateListQuery, TemplateListResponse, TemplateResponse, TemplateUpdateBody } from './template.schemas.js';
import type { TemplateService } from './template.service.js';

/** Templates are part of the channel setup: read with `entity_channel_accounts.view`, changed with `.edit` (docs/decisions.md). */
const VIEW = 'entity_channel_accounts.view';
const EDIT = 'entity_channel_accounts.edit';

/** `/interactions/templates` (served bare and under /api). */
export const templateRoutes: FastifyPluginAsyncTypebox<{ service: TemplateService }> = async (app, { service }) => {
  const tags = ['interactions'];
  const unavailable = { 422: problemResponse('`communications_unavailable`, `communications_not_configured`') };
  app.get(
    '/interactions/templates',
    {
      config: { auth: VIEW },
      schema: { tags, summary: 'Message templates', querystring: TemplateListQuery, response: { 200: TemplateListResponse, ...unavailable } },
    },
    async (request) => service.list(principalOf(request).entityId, request.query),
  );
  app.post(
    '/interactions/templates',
    {
      config: { auth: EDIT },
      schema: {
        tags,
        summary: 'Create a template and submit it for review',
        body: TemplateCreateBody,
        response: { 201: TemplateResponse, 409: problemResponse('`already_exists`: the entity has a template with this name and language'), ...unavailable },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request).entityId, request.body)),
  );
  app.patch(
    '/interactions/templates/:id',
    {
      config: { auth: EDIT },
      schema: { tags, summary: 'Change a template (reviewed again)', params: IdParams, body: TemplateUpdateBody, response: { 200: TemplateResponse } },
    },
    async (request) => service.update(principalOf(request).entityId, request.params.id, request.body),
  );
  app.delete(
    '/interactions/templates/:id',
    {
      config: { auth: EDIT },
      schema: {
        tags,
        summary: 'Delete a template (here and at the platform)',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...unavailable },
      },
    },
    async (request, reply) => {
      await service.remove(principalOf(request).entityId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
