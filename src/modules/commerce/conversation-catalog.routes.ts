import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { scopeOf } from '../erp-session/index.js';
import { ProductList, ProductQuery } from '../catalogs/index.js';
import type { ConversationCatalog } from './conversation-catalog.service.js';
import { OrderResponse } from './order.schemas.js';

const CatalogContext = Type.Object({
  conversation_id: Type.Integer(),
  contact_id: Type.Integer(),
  lead_id: Type.Integer(),
  group_id: Type.Integer(),
  channel_type_code: Type.String(),
  seller_employee_ids: Type.Array(Type.Integer()),
  currency: Type.String({ description: "Currency of the lead's latest order, else the default (GTQ)" }),
  recent_orders: Type.Array(OrderResponse),
});
const SendBody = Type.Object(
  {
    product_id: Type.String({ minLength: 1, maxLength: 100, description: 'ERP product id from catalog/products' }),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: "Price to show; default the product's first price" })),
    reply_to_message_id: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** SPEC "Interactions" → catalog inside a conversation, served by commerce (`catalog.view`). */
export const conversationCatalogRoutes: FastifyPluginAsyncTypebox<{ service: ConversationCatalog }> = async (app, { service }) => {
  const tags = ['commerce'];
  app.get(
    '/interactions/conversations/:id/catalog/context',
    {
      config: { auth: 'catalog.view', erpErrors: true },
      schema: { tags, summary: 'Catalog context of a conversation', params: IdParams, response: { 200: CatalogContext } },
    },
    async (request) => service.context(principalOf(request), request.params.id),
  );
  app.get(
    '/interactions/conversations/:id/catalog/products',
    {
      config: { auth: 'catalog.view', erpErrors: true },
      schema: { tags, summary: 'Catalog products, searchable', params: IdParams, querystring: ProductQuery, response: { 200: ProductList } },
    },
    async (request, reply) => {
      const result = await service.products(principalOf(request), scopeOf(request), request.params.id, request.query);
      return reply.header('x-catalog-cache', result.outcome).send(result.body);
    },
  );
  app.post(
    '/interactions/conversations/:id/catalog/send',
    {
      config: { auth: 'catalog.view', erpErrors: true },
      schema: {
        tags,
        summary: 'Send a product through the chat (image with caption, or text)',
        params: IdParams,
        body: SendBody,
        response: {
          202: Type.Unknown({ description: 'The message, pending (as POST .../messages/image)' }),
          422: problemResponse('`price_not_in_currency`, `outside_service_window`, ...'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await service.send(principalOf(request), scopeOf(request), request.params.id, request.body)),
  );
};
