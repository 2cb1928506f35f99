import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { CustomFieldValuesResponse, PutCustomFieldValuesBody } from './custom-field.schemas.js';
import type { CustomFieldValueService } from './custom-field-value.service.js';

/** Origin of the request, for media URLs the embedded store signs (relative to the service). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** `/groups/:id/custom-field-values` (groups.view / groups.edit) and `/contacts/:id/custom-field-values` (contacts.view / contacts.edit). */
export const customFieldValueRoutes: FastifyPluginAsyncTypebox<{ service: CustomFieldValueService }> = async (app, { service }) => {
  const tags = ['custom fields'];
  for (const [recordType, base, view, edit] of [
    ['group', '/groups', 'groups.view', 'groups.edit'],
    ['contact', '/contacts', 'contacts.view', 'contacts.edit'],
  ] as const) {
    app.get(
      `${base}/:id/custom-field-values`,
      { config: { auth: view }, schema: { tags, summary: `Read the custom field values of a ${recordType}`, params: IdParams, response: { 200: CustomFieldValuesResponse } } },
      async (request) => service.get(principalOf(request), recordType, request.params.id, originOf(request)),
    );
    app.put(
      `${base}/:id/custom-field-values`,
      {
        config: { auth: edit },
        schema: { tags, summary: `Save custom field values of a ${recordType} (all-or-nothing)`, params: IdParams, body: PutCustomFieldValuesBody, response: { 200: CustomFieldValuesResponse } },
      },
      async (request) => service.put(principalOf(request), recordType, request.params.id, request.body, originOf(request)),
    );
  }
};
