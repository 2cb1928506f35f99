import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { problemResponse } from '../../platform/http/openapi.js';
import { Type } from 'typebox';
import type { FormsService } from './forms.service.js';

const IngestBody = Type.Object(
  {
    form_key: Type.String({ minLength: 1, maxLength: 200 }),
    submission_id: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ minLength: 1, maxLength: 300 }),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
    fields: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
const IngestResponse = Type.Object({
  entity_id: Type.Integer(),
  contact_id: Type.Integer(),
  lead_id: Type.Integer(),
  group_id: Type.Integer(),
  created: Type.Boolean(),
  duplicate: Type.Boolean(),
});

/** `POST /api/interactions/forms/ingest` (no JWT, no CORS). */
export const formsRoutes: FastifyPluginAsyncTypebox<{ service: FormsService }> = async (app, { service }) => {
  app.post(
    '/ingest',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['webhooks'],
        summary: 'Web form submission',
        security: [],
        body: IngestBody,
        response: { 200: IngestResponse, 401: problemResponse('`invalid_form_key`: the form key is not known') },
      },
    },
    async (request) => service.ingest(request.body),
  );
};
