import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import {
  OpportunityCreateBody,
  OpportunityListQuery,
  OpportunityListResponse,
  OpportunityResponse,
  PipelineBody,
  PipelineResponse,
  StateChangeBody,
} from './opportunity.schemas.js';
import type { OpportunityService } from './opportunity.service.js';

/** Opportunities live on leads: read with `leads.view`, changed with `leads.edit` (docs/decisions.md "Commerce"). */
export const opportunityRoutes: FastifyPluginAsyncTypebox<{ service: OpportunityService }> = async (app, { service }) => {
  const tags = ['commerce'];
  app.get(
    '/opportunity-pipeline',
    { config: { auth: 'leads.view' }, schema: { tags, summary: "The entity's pipeline states, in order", response: { 200: PipelineResponse } } },
    async (request) => service.pipeline(principalOf(request)),
  );
  app.put(
    '/opportunity-pipeline',
    {
      config: { auth: 'leads.edit' },
      schema: {
        tags,
        summary: 'Replace the pipeline (states kept by id, added, archived)',
        body: PipelineBody,
        response: { 200: PipelineResponse, 409: problemResponse('`state_in_use`') },
      },
    },
    async (request) => service.setPipeline(principalOf(request), request.body),
  );
  app.get(
    '/opportunities',
    {
      config: { auth: 'leads.view' },
      schema: { tags, summary: 'Opportunities of the entity', querystring: OpportunityListQuery, response: { 200: OpportunityListResponse } },
    },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.post(
    '/opportunities',
    {
      config: { auth: 'leads.edit' },
      schema: { tags, summary: 'Open an opportunity on a lead', body: OpportunityCreateBody, response: { 201: OpportunityResponse } },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.get(
    '/opportunities/:id',
    {
      config: { auth: 'leads.view' },
      schema: { tags, summary: 'An opportunity with its state history', params: IdParams, response: { 200: OpportunityResponse } },
    },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '/opportunities/:id/state',
    {
      config: { auth: 'leads.edit' },
      schema: {
        tags,
        summary: 'Move to another state (recorded; publishes opportunity.state_changed)',
        params: IdParams,
        body: StateChangeBody,
        response: { 200: OpportunityResponse, 409: problemResponse('`invalid_transition`') },
      },
    },
    async (request) => service.move(principalOf(request), request.params.id, request.body.state_id),
  );
};
