import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { CreateLabelBody, LabelListResponse, LabelResponse, UpdateLabelBody } from './label.schemas.js';
import type { Labels } from './label.service.js';

/** `/labels` (served bare and under /api): every member reads the catalogue, `labels.manage` writes it. */
export const labelRoutes: FastifyPluginAsyncTypebox<{ labels: Labels }> = async (app, { labels }) => {
  const tags = ['labels'];
  const manage = { auth: 'labels.manage' as const };
  const taken = problemResponse('`label_name_taken`: the entity has a label of that name (whatever its case)');
  app.get(
    '/labels',
    { config: { auth: 'jwt' as const }, schema: { tags, summary: "The entity's labels, by name", response: { 200: LabelListResponse } } },
    async (request) => labels.list(principalOf(request)),
  );
  app.post(
    '/labels',
    { config: manage, schema: { tags, summary: 'Add a label to the catalogue', body: CreateLabelBody, response: { 201: LabelResponse, 409: taken } } },
    async (request, reply) => reply.code(201).send(await labels.create(principalOf(request), request.body)),
  );
  app.patch(
    '/labels/:id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Rename, recolour or describe a label (everywhere it is applied)',
        params: IdParams,
        body: UpdateLabelBody,
        response: { 200: LabelResponse, 409: taken },
      },
    },
    async (request) => labels.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/labels/:id',
    {
      config: manage,
      schema: { tags, summary: 'Delete a label; every conversation, contact and lead loses it', params: IdParams, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      await labels.remove(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
