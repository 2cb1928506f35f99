import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { BULK_MAX_ITEMS, bulkResponse } from '../../platform/http/bulk.js';
import { Id, IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { AddLabelsBody, LabelIds, LabelParams } from '../labels/index.js';
import type { RecordLabels } from './record-labels.service.js';

const RecordLabelIds = Type.Object({
  label_ids: Type.Array(Type.Integer(), { description: "The record's label ids, ascending (names and colours: GET /labels)" }),
});
const BulkLabelBody = Type.Object(
  {
    action: Type.Union([Type.Literal('label'), Type.Literal('unlabel')]),
    ids: Type.Array(Id, { minItems: 1, maxItems: BULK_MAX_ITEMS, uniqueItems: true }),
    label_ids: LabelIds,
  },
  { additionalProperties: false },
);

/** `/contacts/:id/labels`, `/leads/:id/labels` and their bulk forms (issue 49); codes `contacts.edit`, `leads.edit`. */
export const recordLabelRoutes: FastifyPluginAsyncTypebox<{ service: RecordLabels }> = async (app, { service }) => {
  const tags = ['records'];
  const missing = problemResponse('`not_found`: the record, or a label, is not of the caller’s entity');
  for (const kind of ['contact', 'lead'] as const) {
    const path = `/${kind}s`;
    const config = { auth: `${kind}s.edit` };
    app.post(
      `${path}/:id/labels`,
      {
        config,
        schema: { tags, summary: `Put labels on a ${kind}`, params: IdParams, body: AddLabelsBody, response: { 200: RecordLabelIds, 404: missing } },
      },
      async (request) => service.add(principalOf(request), kind, request.params.id, request.body.label_ids),
    );
    app.delete(
      `${path}/:id/labels/:label_id`,
      { config, schema: { tags, summary: `Take a label off a ${kind}`, params: LabelParams, response: { 200: RecordLabelIds, 404: missing } } },
      async (request) => service.remove(principalOf(request), kind, request.params.id, request.params.label_id),
    );
    app.post(
      `${path}/labels/bulk`,
      {
        config,
        schema: {
          tags,
          summary: `Label or unlabel up to ${BULK_MAX_ITEMS} ${kind}s; one result per ${kind}`,
          body: BulkLabelBody,
          response: { 200: bulkResponse(kind), 404: problemResponse('`not_found`: a label is not of the caller’s entity (nothing applied)') },
        },
      },
      async (request) => service.bulk(principalOf(request), kind, request.body),
    );
  }
};
