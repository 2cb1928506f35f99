import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_PAYLOAD_VERSION } from './webhook.events.js';
import {
  CreateEndpointBody,
  CreatedEndpointResponse,
  DeliveryListResponse,
  DeliveryParams,
  DeliveryQuery,
  EndpointListResponse,
  EndpointResponse,
  EventTypesResponse,
  ReplayBody,
  ReplayResponse,
  RotatedSecretResponse,
  UpdateEndpointBody,
} from './webhook.schemas.js';
import type { Webhooks } from './webhook.service.js';

/** `/api/webhooks` (issue 53): the entity's outbound webhook endpoints and their delivery log, with `webhooks.manage`. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: Webhooks }> = async (app, { webhooks }) => {
  const tags = ['webhooks'];
  const config = { auth: 'webhooks.manage' as const };
  const badEndpoint = problemResponse('`invalid_webhook_url` (not https, a private address, credentials), `unknown_event_type`, `validation_failed`');
  app.get(
    '/webhooks/event-types',
    { config: { auth: 'jwt' as const }, schema: { tags, summary: 'The event types an endpoint may subscribe to', response: { 200: EventTypesResponse } } },
    async () => ({ version: WEBHOOK_PAYLOAD_VERSION, data: WEBHOOK_EVENT_TYPES.map(([type, description]) => ({ type, description })) }),
  );
  app.get(
    '/webhooks/endpoints',
    { config, schema: { tags, summary: "The entity's webhook endpoints", response: { 200: EndpointListResponse } } },
    async (request) => webhooks.list(principalOf(request)),
  );
  app.post(
    '/webhooks/endpoints',
    {
      config,
      schema: {
        tags,
        summary: 'Add an endpoint; its secret is in this answer',
        body: CreateEndpointBody,
        response: { 201: CreatedEndpointResponse, 400: badEndpoint },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.create(principalOf(request), request.body)),
  );
  app.get(
    '/webhooks/endpoints/:id',
    { config, schema: { tags, summary: 'One endpoint', params: IdParams, response: { 200: EndpointResponse } } },
    async (request) => webhooks.get(principalOf(request), request.params.id),
  );
  app.patch(
    '/webhooks/endpoints/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Change, disable or enable an endpoint',
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: EndpointResponse, 400: badEndpoint },
      },
    },
    async (request) => webhooks.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/webhooks/endpoints/:id',
    { config, schema: { tags, summary: 'Remove an endpoint and its delivery log', params: IdParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await webhooks.remove(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/webhooks/endpoints/:id/rotate-secret',
    {
      config,
      schema: { tags, summary: 'A new signing secret; the previous one also signs for 24 h', params: IdParams, response: { 200: RotatedSecretResponse } },
    },
    async (request) => webhooks.rotateSecret(principalOf(request), request.params.id),
  );
  app.get(
    '/webhooks/endpoints/:id/deliveries',
    {
      config,
      schema: {
        tags,
        summary: 'The delivery log, newest first, with every attempt',
        params: IdParams,
        querystring: DeliveryQuery,
        response: { 200: DeliveryListResponse },
      },
    },
    async (request) => webhooks.deliveries(principalOf(request), request.params.id, request.query),
  );
  app.post(
    '/webhooks/endpoints/:id/deliveries/:delivery_id/replay',
    { config, schema: { tags, summary: 'Send one delivery again (same webhook-id)', params: DeliveryParams, response: { 200: ReplayResponse } } },
    async (request) => webhooks.replay(principalOf(request), request.params.id, { deliveryId: request.params.delivery_id }),
  );
  app.post(
    '/webhooks/endpoints/:id/replay',
    {
      config,
      schema: { tags, summary: 'Send again every delivery made since an instant', params: IdParams, body: ReplayBody, response: { 200: ReplayResponse } },
    },
    async (request) => webhooks.replay(principalOf(request), request.params.id, { since: request.body.since }),
  );
};
