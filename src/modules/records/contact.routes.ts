import { Type } from 'typebox';
import { problemResponse } from '../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { ContactListQuery, ContactListResponse, ContactResponse, CreateContactBody, UpdateContactBody } from './contact.schemas.js';
import type { ContactService } from './contact.service.js';

/** `/contacts` (codes contacts.*). */
export const contactRoutes: FastifyPluginAsyncTypebox<{ service: ContactService }> = async (app, { service }) => {
  const tags = ['records'];
  app.get(
    '/contacts',
    {
      config: { auth: 'contacts.view' },
      schema: { tags, summary: 'List contacts (canonical: ?group_id=, one query)', querystring: ContactListQuery, response: { 200: ContactListResponse } },
    },
    async (request) => service.list(principalOf(request), request.query),
  );
  app.get(
    '/contacts/:id',
    { config: { auth: 'contacts.view' }, schema: { tags, summary: 'Contact detail', params: IdParams, response: { 200: ContactResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '/contacts',
    {
      config: { auth: 'contacts.create' },
      schema: {
        tags,
        summary: 'Create a contact of a lead',
        body: CreateContactBody,
        response: { 201: ContactResponse, 409: problemResponse('`channel_taken`: a channel of the contact already belongs to another contact') },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
  );
  app.patch(
    '/contacts/:id',
    {
      config: { auth: 'contacts.edit' },
      schema: { tags, summary: 'Update a contact (manual channels contract)', params: IdParams, body: UpdateContactBody, response: { 200: ContactResponse } },
    },
    async (request) => service.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/contacts/:id',
    {
      config: { auth: 'contacts.edit' },
      schema: {
        tags,
        summary: 'Delete a contact with its channels and labels',
        description: 'Refused while a conversation, quote, order or form key names it: erase its personal data instead (docs/privacy.md).',
        params: IdParams,
        response: { 204: Type.Null(), 409: problemResponse('`record_in_use`: conversations, quotes, orders or a form key name the contact') },
      },
    },
    async (request, reply) => {
      await service.remove(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
