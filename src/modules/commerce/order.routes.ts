import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { decimalsAsStrings } from './document.schemas.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { OrderCreateBody, OrderListQuery, OrderListResponse, OrderResponse } from './order.schemas.js';
import type { OrderService } from './order.service.js';

/** `/orders` (SPEC codes orders.view, orders.create; paths are ours, docs/api/commerce.md). */
export const orderRoutes: FastifyPluginAsyncTypebox<{ service: OrderService }> = async (app, { service }) => {
  const tags = ['commerce'];
  app.get(
    '/orders',
    { config: { auth: 'orders.view' }, schema: { tags, summary: 'Orders of the entity', querystring: OrderListQuery, response: { 200: OrderListResponse } } },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.post(
    '/orders',
    {
      config: { auth: 'orders.create' },
      preValidation: decimalsAsStrings,
      schema: {
        tags,
        summary: 'Create an order from an approved quote or with lines (publishes order.created, pushed to the ERP)',
        body: OrderCreateBody,
        response: {
          201: OrderResponse,
          404: problemResponse('`not_found`: the quote (or a record) named in the body is not in the active entity'),
          409: problemResponse('`quote_not_approved`, `order_exists`'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.post(
    '/orders/:id/erp-push',
    {
      config: { auth: 'orders.create' },
      schema: {
        tags,
        summary: 'Push a failed order to the ERP again (same idempotency key)',
        params: IdParams,
        response: { 200: OrderResponse, 409: problemResponse('`order_pushed`') },
      },
    },
    async (request) => service.retryPush(principalOf(request), request.params.id),
  );
  app.get(
    '/orders/:id',
    { config: { auth: 'orders.view' }, schema: { tags, summary: 'An order with its lines and ERP state', params: IdParams, response: { 200: OrderResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
};
