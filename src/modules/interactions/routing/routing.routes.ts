import { problemResponse } from '../../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import type { RoutingService } from './routing.service.js';
import {
  FilterBody,
  FilterPatch,
  FilterResponse,
  IdParams,
  MemberBody,
  MemberParams,
  MemberPatch,
  MemberResponse,
  QueueBody,
  QueuePatch,
  QueueResponse,
} from './routing.schemas.js';

/** Reading routing needs VIEW, changing it EDIT (docs/decisions.md). */
const ROUTING_VIEW = 'entity_channel_accounts.view';
const ROUTING_EDIT = 'entity_channel_accounts.edit';

/** `/interactions/routing/*` (served bare and under /api). */
export const routingRoutes: FastifyPluginAsyncTypebox<{ service: RoutingService }> = async (app, { service: s }) => {
  const tags = ['interactions routing'];
  const base = '/interactions/routing';
  const list = <T extends Parameters<typeof Type.Array>[0]>(t: T) => Type.Object({ data: Type.Array(t) });
  const view = { auth: ROUTING_VIEW };
  const edit = { auth: ROUTING_EDIT };
  app.get(`${base}/queues`, { config: view, schema: { tags, summary: 'List queues', response: { 200: list(QueueResponse) } } }, async (r) =>
    s.listQueues(principalOf(r)),
  );
  app.post(
    `${base}/queues`,
    { config: edit, schema: { tags, summary: 'Create a queue', body: QueueBody, response: { 201: QueueResponse } } },
    async (r, reply) => reply.code(201).send(await s.createQueue(principalOf(r), r.body)),
  );
  app.patch(
    `${base}/queues/:id`,
    { config: edit, schema: { tags, summary: 'Update a queue', params: IdParams, body: QueuePatch, response: { 200: QueueResponse } } },
    async (r) => s.updateQueue(principalOf(r), r.params.id, r.body),
  );
  app.delete(
    `${base}/queues/:id`,
    { config: edit, schema: { tags, summary: 'Delete a queue (its waiting conversations become unassigned)', params: IdParams } },
    async (r, reply) => {
      await s.deleteQueue(principalOf(r), r.params.id);
      return reply.code(204).send();
    },
  );
  app.get(
    `${base}/queues/:id/members`,
    { config: view, schema: { tags, summary: 'List members', params: IdParams, response: { 200: list(MemberResponse) } } },
    async (r) => s.listMembers(principalOf(r), r.params.id),
  );
  app.post(
    `${base}/queues/:id/members`,
    { config: edit, schema: { tags, summary: 'Add a member', params: IdParams, body: MemberBody, response: { 201: MemberResponse } } },
    async (r, reply) => reply.code(201).send(await s.addMember(principalOf(r), r.params.id, r.body)),
  );
  app.patch(
    `${base}/queues/:id/members/:memberId`,
    {
      config: edit,
      schema: {
        tags,
        summary: 'Update a member (availability, capacity, position)',
        params: MemberParams,
        body: MemberPatch,
        response: { 200: MemberResponse },
      },
    },
    async (r) => s.updateMember(principalOf(r), r.params.id, r.params.memberId, r.body),
  );
  app.delete(`${base}/queues/:id/members/:memberId`, { config: edit, schema: { tags, summary: 'Remove a member', params: MemberParams } }, async (r, reply) => {
    await s.removeMember(principalOf(r), r.params.id, r.params.memberId);
    return reply.code(204).send();
  });
  app.post(
    `${base}/availability`,
    {
      config: { auth: 'jwt' },
      schema: {
        tags,
        summary: "Set the caller's own availability in every queue",
        body: Type.Object({ is_available: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Type.Object({ employee_id: Type.Integer(), is_available: Type.Boolean() }) },
      },
    },
    async (r) => s.setMyAvailability(principalOf(r), r.body.is_available),
  );
  app.get(`${base}/filters`, { config: view, schema: { tags, summary: 'List filters (priority order)', response: { 200: list(FilterResponse) } } }, async (r) =>
    s.listFilters(principalOf(r)),
  );
  app.post(
    `${base}/filters`,
    {
      config: edit,
      schema: {
        tags,
        summary: 'Create a filter',
        body: FilterBody,
        response: { 201: FilterResponse, 404: problemResponse('`not_found`: the routing queue named in the body is not in the active entity') },
      },
    },
    async (r, reply) => reply.code(201).send(await s.createFilter(principalOf(r), r.body)),
  );
  app.patch(
    `${base}/filters/:id`,
    { config: edit, schema: { tags, summary: 'Update a filter', params: IdParams, body: FilterPatch, response: { 200: FilterResponse } } },
    async (r) => s.updateFilter(principalOf(r), r.params.id, r.body),
  );
  app.delete(`${base}/filters/:id`, { config: edit, schema: { tags, summary: 'Delete a filter', params: IdParams } }, async (r, reply) => {
    await s.deleteFilter(principalOf(r), r.params.id);
    return reply.code(204).send();
  });
};
