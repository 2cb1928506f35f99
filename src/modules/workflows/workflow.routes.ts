import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import type { WorkflowService } from './workflow.service.js';
import type { ExecutionService } from './execution.service.js';
import {
  DryRunBody,
  DryRunResponse,
  ExecuteBody,
  ExecutionListQuery,
  ExecutionListResponse,
  ExecutionParams,
  ExecutionResponse,
  FieldRegistryResponse,
  PresetListResponse,
  WorkflowCreateBody,
  WorkflowListQuery,
  WorkflowListResponse,
  WorkflowResponse,
  WorkflowUpdateBody,
  WorkflowVersionListResponse,
} from './workflow.schemas.js';

/** Our addition to SPEC's catalogue (docs/decisions.md "Workflows"). */
const VIEW = 'workflows.view';
const MANAGE = 'workflows.manage';
const EXECUTE = 'workflows.execute';
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Repeating a request with the same key starts nothing new (409 execution_exists)' }),
  ),
});

/** `/api/workflows` (SPEC "Workflows": presets and execute; the rest are ours, docs/api/workflows.md). */
export const workflowRoutes: FastifyPluginAsyncTypebox<{ workflows: WorkflowService; executions: ExecutionService }> = async (
  app,
  { workflows, executions },
) => {
  const tags = ['workflows'];
  app.get(
    '/trigger-presets',
    { config: { auth: VIEW }, schema: { tags, summary: 'Preset cards (event, pre-filled filters, label)', response: { 200: PresetListResponse } } },
    async () => workflows.presets(),
  );
  app.get(
    '/trigger-fields',
    {
      config: { auth: VIEW },
      schema: { tags, summary: 'Field registry: fields, types, operators and values per trigger event', response: { 200: FieldRegistryResponse } },
    },
    async () => workflows.fieldRegistry(),
  );
  app.get(
    '',
    { config: { auth: VIEW }, schema: { tags, summary: 'Workflows of the entity', querystring: WorkflowListQuery, response: { 200: WorkflowListResponse } } },
    async (request) => workflows.list(principalOf(request), request.query),
  );
  app.post(
    '',
    {
      config: { auth: MANAGE },
      schema: { tags, summary: 'Create a workflow (from a preset_code or a trigger_type)', body: WorkflowCreateBody, response: { 201: WorkflowResponse } },
    },
    async (request, reply) => reply.code(201).send(await workflows.create(principalOf(request), request.body)),
  );
  app.get(
    '/:id',
    {
      config: { auth: VIEW },
      schema: { tags, summary: 'A workflow with its current trigger and steps', params: IdParams, response: { 200: WorkflowResponse } },
    },
    async (request) => workflows.get(principalOf(request), request.params.id),
  );
  app.patch(
    '/:id',
    {
      config: { auth: MANAGE },
      schema: {
        tags,
        summary: 'Rename, enable or disable; a new trigger or steps make a new version',
        params: IdParams,
        body: WorkflowUpdateBody,
        response: { 200: WorkflowResponse },
      },
    },
    async (request) => workflows.update(principalOf(request), request.params.id, request.body),
  );
  app.delete(
    '/:id',
    {
      config: { auth: MANAGE },
      schema: { tags, summary: 'Delete a workflow (its history stays)', params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } },
    },
    async (request, reply) => {
      await workflows.remove(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
  app.get(
    '/:id/versions',
    {
      config: { auth: VIEW },
      schema: { tags, summary: 'Versions of the definition, newest first', params: IdParams, response: { 200: WorkflowVersionListResponse } },
    },
    async (request) => workflows.versions(principalOf(request), request.params.id),
  );
  app.post(
    '/:id/execute',
    {
      config: { auth: EXECUTE },
      // The body is optional: a request without one runs with no contact, lead or group.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Run a workflow manually (event manual)',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: Type.Optional(ExecuteBody),
        response: { 202: ExecutionResponse, 409: problemResponse('`workflow_disabled`, `execution_exists`') },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await executions.executeManually(principalOf(request), request.params.id, request.body ?? {}, request.headers['idempotency-key'] ?? randomUUID()),
        ),
  );
  app.post(
    '/:id/dry-run',
    {
      config: { auth: VIEW },
      schema: {
        tags,
        summary: 'Walk the workflow against a sample context; performs nothing',
        params: IdParams,
        body: DryRunBody,
        response: { 200: DryRunResponse },
      },
    },
    async (request) => executions.dryRun(principalOf(request), request.params.id, request.body.context),
  );
  app.get(
    '/:id/executions',
    {
      config: { auth: VIEW },
      schema: { tags, summary: 'Run history, newest first', params: IdParams, querystring: ExecutionListQuery, response: { 200: ExecutionListResponse } },
    },
    async (request) => executions.list(principalOf(request), request.params.id, request.query),
  );
  app.get(
    '/:id/executions/:executionId',
    {
      config: { auth: VIEW },
      schema: { tags, summary: 'One execution with its step results and errors', params: ExecutionParams, response: { 200: ExecutionResponse } },
    },
    async (request) => executions.get(principalOf(request), request.params.id, request.params.executionId),
  );
};
