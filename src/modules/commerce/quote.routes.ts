import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { decimalsAsStrings } from './document.schemas.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { QuoteCreateBody, QuoteListQuery, QuoteListResponse, QuoteResponse, QuoteUpdateBody } from './quote.schemas.js';
import type { QuoteService } from './quote.service.js';
import type { QuoteDelivery } from './quote-delivery.js';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { IdOf } from '../../platform/http/ids.js';

const Pdf = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'The quote as application/pdf' });

/** `/quotes` (SPEC codes quotes.view, quotes.create; paths are ours, docs/api/commerce.md). */
export const quoteRoutes: FastifyPluginAsyncTypebox<{ service: QuoteService; delivery: QuoteDelivery }> = async (app, { service, delivery }) => {
  const tags = ['commerce'];
  const moves = { 409: problemResponse('`invalid_transition`') };
  app.get(
    '/quotes',
    { config: { auth: 'quotes.view' }, schema: { tags, summary: 'Quotes of the entity', querystring: QuoteListQuery, response: { 200: QuoteListResponse } } },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.post(
    '/quotes',
    {
      config: { auth: 'quotes.create' },
      preValidation: decimalsAsStrings,
      schema: { tags, summary: 'Create a draft quote', body: QuoteCreateBody, response: { 201: QuoteResponse } },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.get(
    '/quotes/:id',
    { config: { auth: 'quotes.view' }, schema: { tags, summary: 'A quote with its lines and totals', params: IdParams, response: { 200: QuoteResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.patch(
    '/quotes/:id',
    {
      config: { auth: 'quotes.create' },
      preValidation: decimalsAsStrings,
      schema: {
        tags,
        summary: 'Change a draft',
        params: IdParams,
        body: QuoteUpdateBody,
        response: { 200: QuoteResponse, 409: problemResponse('`quote_not_editable`') },
      },
    },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
  app.get(
    '/quotes/:id/pdf',
    {
      config: { auth: 'quotes.view' },
      schema: {
        tags,
        summary: 'The quote as a PDF',
        params: IdParams,
        produces: ['application/pdf'],
        response: { 200: { description: 'The quote as a PDF', content: { 'application/pdf': { schema: Pdf } } } },
      },
    },
    async (request, reply) => {
      const { fileName, stream } = await delivery.pdf(principalOf(request), request.params.id);
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${fileName}"`).send(stream);
    },
  );
  app.post(
    '/quotes/:id/send-to-conversation',
    {
      config: { auth: 'quotes.create' },
      schema: {
        tags,
        summary: 'Send the quote PDF into a conversation as a document (a draft becomes sent)',
        params: IdParams,
        body: Type.Object({ conversation_id: IdOf('Conversation of the entity') }, { additionalProperties: false }),
        response: {
          202: Type.Unknown({ description: 'The document message, pending' }),
          409: problemResponse('`invalid_transition`'),
          422: problemResponse('`outside_service_window`, ...'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await delivery.sendToConversation(principalOf(request), request.params.id, request.body.conversation_id)),
  );
  for (const action of ['send', 'approve', 'reject'] as const) {
    const summary = {
      send: 'Mark a draft as sent to the customer',
      approve: "Record the customer's approval (publishes quote.approved)",
      reject: "Record the customer's rejection (publishes quote.rejected)",
    }[action];
    app.post(
      `/quotes/:id/${action}`,
      { config: { auth: 'quotes.create' }, schema: { tags, summary, params: IdParams, response: { 200: QuoteResponse, ...moves } } },
      async (request) => service.move(principalOf(request), request.params.id, action),
    );
  }
};
