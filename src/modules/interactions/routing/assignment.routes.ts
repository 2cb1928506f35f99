import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import type { AssignmentService } from './assignment.service.js';
import { AssignBody, ConversationResponse, IdParams } from '../conversations/index.js';

/** Conversation assignment needs this code, alone or in bulk (docs/decisions.md). */
export const ASSIGN_PERMISSION = 'cartera.seller_assignment';

/** `/interactions/conversations/:id/assign` and `/unassign` (served bare and under /api). */
export const assignmentRoutes: FastifyPluginAsyncTypebox<{ service: AssignmentService }> = async (app, { service }) => {
  const tags = ['interactions'];
  app.post(
    '/interactions/conversations/:id/assign',
    {
      config: { auth: ASSIGN_PERMISSION },
      schema: { tags, summary: 'Assign to an employee', params: IdParams, body: AssignBody, response: { 200: ConversationResponse } },
    },
    async (request) => service.assign(principalOf(request), request.params.id, request.body.employee_id),
  );
  app.post(
    '/interactions/conversations/:id/unassign',
    { config: { auth: ASSIGN_PERMISSION }, schema: { tags, summary: 'Remove the assignment', params: IdParams, response: { 200: ConversationResponse } } },
    async (request) => service.unassign(principalOf(request), request.params.id),
  );
};
