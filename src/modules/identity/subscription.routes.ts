import { problemResponse } from '../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import {
  CreateSubscriptionBody,
  SubscriptionListQuery,
  SubscriptionListResponse,
  SubscriptionResponse,
  UpdateSubscriptionBody,
} from './subscription.schemas.js';
import type { SubscriptionService } from './subscription.service.js';

/** `/api/subscriptions` (codes subscriptions.*). */
export const subscriptionRoutes: FastifyPluginAsyncTypebox<{ service: SubscriptionService }> = async (app, { service }) => {
  const tags = ['administration'];
  app.get(
    '',
    {
      config: { auth: 'subscriptions.view' },
      schema: { tags, summary: 'List subscriptions', querystring: SubscriptionListQuery, response: { 200: SubscriptionListResponse } },
    },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.get(
    '/:id',
    { config: { auth: 'subscriptions.view' }, schema: { tags, summary: 'Subscription detail', params: IdParams, response: { 200: SubscriptionResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '',
    {
      config: { auth: 'subscriptions.create' },
      schema: {
        tags,
        summary: 'Create a subscription',
        body: CreateSubscriptionBody,
        response: {
          201: SubscriptionResponse,
          404: problemResponse('`not_found`: the employee, user or role named in the body is not in the active entity'),
          409: problemResponse('`already_exists`: the subject already has a subscription at that level'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.patch(
    '/:id',
    {
      config: { auth: 'subscriptions.edit' },
      schema: {
        tags,
        summary: 'Change the role or replace the overrides',
        params: IdParams,
        body: UpdateSubscriptionBody,
        response: { 200: SubscriptionResponse },
      },
    },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
};
