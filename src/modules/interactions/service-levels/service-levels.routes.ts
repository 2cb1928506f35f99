import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { IdParams } from '../../../platform/http/ids.js';
import type { ServiceLevels } from './service-levels.service.js';
import { BusinessHoursBody, BusinessHoursPatch, BusinessHoursResponse, SlaPolicyBody, SlaPolicyPatch, SlaPolicyResponse } from './service-levels.schemas.js';

/** Reading business hours and SLA policies needs VIEW, changing them EDIT (docs/decisions.md "SLA permission codes"). */
const SLA_VIEW = 'sla_policies.view';
const SLA_EDIT = 'sla_policies.edit';

/** `/interactions/business-hours` and `/interactions/sla-policies` (served bare and under /api). */
export const serviceLevelRoutes: FastifyPluginAsyncTypebox<{ service: ServiceLevels }> = async (app, { service: s }) => {
  const tags = ['interactions service levels'];
  const list = <T extends Parameters<typeof Type.Array>[0]>(t: T) => Type.Object({ data: Type.Array(t) });
  const view = { auth: SLA_VIEW };
  const edit = { auth: SLA_EDIT };

  app.get(
    '/interactions/business-hours',
    {
      config: view,
      schema: { tags, summary: "List the entity's business hours and the routing queues' overrides", response: { 200: list(BusinessHoursResponse) } },
    },
    async (r) => s.listBusinessHours(principalOf(r)),
  );
  app.post(
    '/interactions/business-hours',
    {
      config: edit,
      schema: {
        tags,
        summary: "Create the entity's business hours (no routing_queue_id) or a routing queue's override",
        body: BusinessHoursBody,
        response: { 201: BusinessHoursResponse },
      },
    },
    async (r, reply) => reply.code(201).send(await s.createBusinessHours(principalOf(r), r.body)),
  );
  app.patch(
    '/interactions/business-hours/:id',
    { config: edit, schema: { tags, summary: 'Change business hours', params: IdParams, body: BusinessHoursPatch, response: { 200: BusinessHoursResponse } } },
    async (r) => s.updateBusinessHours(principalOf(r), r.params.id, r.body),
  );
  app.delete(
    '/interactions/business-hours/:id',
    { config: edit, schema: { tags, summary: 'Delete business hours', params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } } },
    async (r, reply) => {
      await s.deleteBusinessHours(principalOf(r), r.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/interactions/sla-policies',
    { config: view, schema: { tags, summary: 'List SLA policies', response: { 200: list(SlaPolicyResponse) } } },
    async (r) => s.listPolicies(principalOf(r)),
  );
  app.get(
    '/interactions/sla-policies/:id',
    { config: view, schema: { tags, summary: 'One SLA policy', params: IdParams, response: { 200: SlaPolicyResponse } } },
    async (r) => s.getPolicy(principalOf(r), r.params.id),
  );
  app.post(
    '/interactions/sla-policies',
    { config: edit, schema: { tags, summary: 'Create an SLA policy', body: SlaPolicyBody, response: { 201: SlaPolicyResponse } } },
    async (r, reply) => reply.code(201).send(await s.createPolicy(principalOf(r), r.body)),
  );
  app.patch(
    '/interactions/sla-policies/:id',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Change an SLA policy (running clocks keep their policy until their next cycle)',
        params: IdParams,
        body: SlaPolicyPatch,
        response: { 200: SlaPolicyResponse },
      },
    },
    async (r) => s.updatePolicy(principalOf(r), r.params.id, r.body),
  );
  app.delete(
    '/interactions/sla-policies/:id',
    { config: edit, schema: { tags, summary: 'Delete an SLA policy', params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } } },
    async (r, reply) => {
      await s.deletePolicy(principalOf(r), r.params.id);
      return reply.code(204).send(null);
    },
  );
};
