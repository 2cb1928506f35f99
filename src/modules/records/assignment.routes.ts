import { problemResponse } from '../../platform/http/openapi.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { permissionDenied } from '../../platform/errors.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { IdParams } from '../../platform/http/ids.js';
import {
  AssignGroupsBody,
  AssignGroupsResponse,
  CreateLeadAssignmentBody,
  GroupAssignmentListQuery,
  GroupAssignmentListResponse,
  LeadAssignmentListQuery,
  LeadAssignmentListResponse,
  LeadAssignmentResponse,
} from './assignment.schemas.js';
import type { AssignmentService } from './assignment.service.js';

/** Group assignments are managed with group_assignments.manage or, from the cartera, cartera.seller_assignment. */
function assertGroupAssigner(caller: Principal): void {
  if (!caller.permissions.has('group_assignments.manage') && !caller.permissions.has('cartera.seller_assignment')) {
    throw permissionDenied('group_assignments.manage');
  }
}
function groupAssigner(request: FastifyRequest): Principal {
  const caller = principalOf(request);
  assertGroupAssigner(caller);
  return caller;
}

/** `/lead-assignments` and `/group-assignments`. */
export const assignmentRoutes: FastifyPluginAsyncTypebox<{ service: AssignmentService }> = async (app, { service }) => {
  const tags = ['records'];
  app.get(
    '/lead-assignments',
    {
      config: { auth: 'leads.view' },
      schema: { tags, summary: 'List direct lead assignments', querystring: LeadAssignmentListQuery, response: { 200: LeadAssignmentListResponse } },
    },
    async (request) => service.listLeadAssignments(principalOf(request), request.query),
  );
  app.post(
    '/lead-assignments',
    {
      config: { auth: 'lead_assignments.manage' },
      schema: {
        tags,
        summary: 'Assign a seller to a lead (idempotent: 200 when it exists)',
        body: CreateLeadAssignmentBody,
        response: { 200: LeadAssignmentResponse, 201: LeadAssignmentResponse },
      },
    },
    async (request, reply) => {
      const { assignment, created } = await service.assignLead(principalOf(request), request.body);
      return reply.code(created ? 201 : 200).send(assignment);
    },
  );
  app.delete(
    '/lead-assignments/:id',
    { config: { auth: 'lead_assignments.manage' }, schema: { tags, summary: 'Remove a lead assignment', params: IdParams } },
    async (request, reply) => {
      await service.unassignLead(principalOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
  app.get(
    '/group-assignments',
    {
      config: { auth: 'groups.view' },
      schema: { tags, summary: 'List group assignments', querystring: GroupAssignmentListQuery, response: { 200: GroupAssignmentListResponse } },
    },
    async (request) => service.listGroupAssignments(principalOf(request), request.query),
  );
  app.post(
    '/group-assignments',
    {
      // Checked by the guard before validation so a caller without either code learns nothing about the payload.
      config: { auth: 'jwt', authorize: assertGroupAssigner },
      schema: {
        tags,
        summary: 'Assign a seller to several groups (idempotent); requires group_assignments.manage or cartera.seller_assignment',
        body: AssignGroupsBody,
        response: { 200: AssignGroupsResponse, 403: problemResponse('`permission_denied`: neither group_assignments.manage nor cartera.seller_assignment') },
      },
    },
    async (request) => service.assignGroups(groupAssigner(request), request.body),
  );
  app.delete(
    '/group-assignments/:id',
    {
      config: { auth: 'jwt', authorize: assertGroupAssigner },
      schema: {
        tags,
        summary: 'Remove a group assignment',
        params: IdParams,
        response: {
          204: Type.Null({ description: 'Removed; no body' }),
          403: problemResponse('`permission_denied`: neither group_assignments.manage nor cartera.seller_assignment'),
        },
      },
    },
    async (request, reply) => {
      await service.unassignGroup(groupAssigner(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
