import { Type } from 'typebox';
import { problemResponse } from '../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pendingPrincipalOf, principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { sendJsonText } from '../../platform/http/json-text.js';
import { CreateLeadBody, LeadListQuery, LeadListResponse, LeadResponse, UpdateLeadBody } from './lead.schemas.js';
import type { LeadService } from './lead.service.js';

/** `/leads` (codes leads.*). */
export const leadRoutes: FastifyPluginAsyncTypebox<{ service: LeadService }> = async (app, { service }) => {
  const tags = ['records'];
  app.get(
    '/leads',
    {
      config: { auth: 'leads.view', membershipReadAlong: true },
      schema: { tags, summary: 'List leads and clients', querystring: LeadListQuery, response: { 200: LeadListResponse } },
    },
    async (request, reply) => sendJsonText(reply, await service.list(pendingPrincipalOf(request), request.query)),
  );
  app.get(
    '/leads/:id',
    { config: { auth: 'leads.view' }, schema: { tags, summary: 'Lead detail', params: IdParams, response: { 200: LeadResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '/leads',
    {
      config: { auth: 'leads.create' },
      schema: { tags, summary: 'Create a lead (a client when erp_id is set)', body: CreateLeadBody, response: { 201: LeadResponse } },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.patch(
    '/leads/:id',
    {
      config: { auth: 'leads.edit' },
      schema: {
        tags,
        summary: 'Update a lead; setting erp_id makes it a client',
        params: IdParams,
        body: UpdateLeadBody,
        response: { 200: LeadResponse, 409: problemResponse('`already_exists`: the erp_id already belongs to another lead') },
      },
    },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/leads/:id',
    {
      config: { auth: 'leads.edit' },
      schema: {
        tags,
        summary: 'Delete a lead with its contacts, their channels and labels, its assignments and its cartera row',
        description:
          'Refused while a conversation, quote, order or form key names it or one of its contacts: erase their personal data instead (docs/privacy.md).',
        params: IdParams,
        response: { 204: Type.Null(), 409: problemResponse('`record_in_use`: conversations, quotes, orders or a form key name the lead or a contact of it') },
      },
    },
    async (request, reply) => {
      await service.remove(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
