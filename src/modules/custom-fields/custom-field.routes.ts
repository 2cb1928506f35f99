import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import {
  CreateCustomFieldBody,
  CreateCustomFieldGroupBody,
  CustomFieldGroupListQuery,
  CustomFieldGroupListResponse,
  CustomFieldGroupResponse,
  CustomFieldListQuery,
  CustomFieldListResponse,
  CustomFieldResponse,
  CustomFieldTypeListResponse,
  UpdateCustomFieldBody,
  UpdateCustomFieldGroupBody,
} from './custom-field.schemas.js';
import type { CustomFieldService } from './custom-field.service.js';

/** `/custom-field-types`, `/custom-field-groups`, `/custom-fields` (codes custom_field_*). */
export const customFieldRoutes: FastifyPluginAsyncTypebox<{ service: CustomFieldService }> = async (app, { service }) => {
  const tags = ['custom fields'];
  app.get(
    '/custom-field-types',
    { config: { auth: 'custom_field_types.view' }, schema: { tags, summary: 'List value kinds', response: { 200: CustomFieldTypeListResponse } } },
    async () => service.listTypes(),
  );
  app.get(
    '/custom-field-groups',
    {
      config: { auth: 'custom_field_groups.view' },
      schema: {
        tags,
        summary: 'List field groups (default limit 10)',
        querystring: CustomFieldGroupListQuery,
        response: { 200: CustomFieldGroupListResponse },
      },
    },
    async (request) => service.listGroups(principalOf(request), request.query),
  );
  app.get(
    '/custom-field-groups/:id',
    {
      config: { auth: 'custom_field_groups.view' },
      schema: { tags, summary: 'Field group detail', params: IdParams, response: { 200: CustomFieldGroupResponse } },
    },
    async (request) => service.getGroup(principalOf(request), request.params.id),
  );
  app.post(
    '/custom-field-groups',
    {
      config: { auth: 'custom_field_groups.create' },
      schema: { tags, summary: 'Create a field group', body: CreateCustomFieldGroupBody, response: { 201: CustomFieldGroupResponse } },
    },
    async (request, reply) => reply.code(201).send(await service.createGroup(principalOf(request), request.body)),
  );
  app.patch(
    '/custom-field-groups/:id',
    {
      config: { auth: 'custom_field_groups.edit' },
      schema: { tags, summary: 'Update a field group', params: IdParams, body: UpdateCustomFieldGroupBody, response: { 200: CustomFieldGroupResponse } },
    },
    async (request) => service.updateGroup(principalOf(request), request.params.id, request.body),
  );
  app.get(
    '/custom-fields',
    {
      config: { auth: 'custom_fields.view' },
      schema: { tags, summary: 'List fields (default limit 10)', querystring: CustomFieldListQuery, response: { 200: CustomFieldListResponse } },
    },
    async (request) => service.listFields(principalOf(request), request.query),
  );
  app.get(
    '/custom-fields/:id',
    { config: { auth: 'custom_fields.view' }, schema: { tags, summary: 'Field detail', params: IdParams, response: { 200: CustomFieldResponse } } },
    async (request) => service.getField(principalOf(request), request.params.id),
  );
  app.post(
    '/custom-fields',
    {
      config: { auth: 'custom_fields.create' },
      schema: { tags, summary: 'Create a field', body: CreateCustomFieldBody, response: { 201: CustomFieldResponse } },
    },
    async (request, reply) => reply.code(201).send(await service.createField(principalOf(request), request.body)),
  );
  app.patch(
    '/custom-fields/:id',
    {
      config: { auth: 'custom_fields.edit' },
      schema: { tags, summary: 'Update a field', params: IdParams, body: UpdateCustomFieldBody, response: { 200: CustomFieldResponse } },
    },
    async (request) => service.updateField(principalOf(request), request.params.id, request.body),
  );
};
