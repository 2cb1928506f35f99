import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { serviceOrigin as originOf } from '../../platform/http/service-origin.js';
import { CustomFieldValuesResponse, PutCustomFieldValuesBody } from './custom-field.schemas.js';
import type { CustomFieldValueService } from './custom-field-value.service.js';

/** `/groups/:id/custom-field-values` (groups.view / groups.edit) and `/contacts/:id/custom-field-values` (contacts.view / contacts.edit). */
export const customFieldValueRoutes: FastifyPluginAsyncTypebox<{ service: CustomFieldValueService }> = async (app, { service }) => {
  const tags = ['custom fields'];
  for (const [recordType, base, view, edit] of [
    ['group', '/groups', 'groups.view', 'groups.edit'],
    ['contact', '/contacts', 'contacts.view', 'contacts.edit'],
  ] as const) {
    app.get(
      `${base}/:id/custom-field-values`,
      {
        config: { auth: view },
        schema: { tags, summary: `Read the custom field values of a ${recordType}`, params: IdParams, response: { 200: CustomFieldValuesResponse } },
      },
      async (request) => service.get(principalOf(request), recordType, request.params.id, originOf(request)),
    );
    app.put(
      `${base}/:id/custom-field-values`,
      {
        config: { auth: edit },
        schema: {
          tags,
          summary: `Save custom field values of a ${recordType} (all-or-nothing)`,
          params: IdParams,
          body: PutCustomFieldValuesBody,
          response: { 200: CustomFieldValuesResponse },
        },
      },
      async (request) => service.put(principalOf(request), recordType, request.params.id, request.body, originOf(request)),
    );
  }
};
