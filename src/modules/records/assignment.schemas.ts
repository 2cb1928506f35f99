import { Type, type Static } from 'typebox';
import { Id, IdOf } from '../../platform/http/ids.js';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';

export const LeadAssignmentResponse = Type.Object({
  id: Type.Integer(),
  lead_id: Type.Integer(),
  employee_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});
export type LeadAssignmentResponse = Static<typeof LeadAssignmentResponse>;

export const GroupAssignmentResponse = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  employee_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});
export type GroupAssignmentResponse = Static<typeof GroupAssignmentResponse>;

export const LeadAssignmentListResponse = pageOf(LeadAssignmentResponse);
export const GroupAssignmentListResponse = pageOf(GroupAssignmentResponse);

export const LeadAssignmentListQuery = Type.Object({
  ...pageQuery(200),
  lead_id: Type.Optional(Id),
  employee_id: Type.Optional(Id),
});
export type LeadAssignmentListQuery = Static<typeof LeadAssignmentListQuery>;

export const GroupAssignmentListQuery = Type.Object({
  ...pageQuery(200),
  group_id: Type.Optional(Id),
  employee_id: Type.Optional(Id),
});
export type GroupAssignmentListQuery = Static<typeof GroupAssignmentListQuery>;

export const CreateLeadAssignmentBody = Type.Object({ lead_id: Id, employee_id: Id }, { additionalProperties: false });
export type CreateLeadAssignmentBody = Static<typeof CreateLeadAssignmentBody>;

export const AssignGroupsBody = Type.Object(
  {
    employee_id: IdOf('The seller'),
    group_ids: Type.Array(Id, { minItems: 1, maxItems: 500, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type AssignGroupsBody = Static<typeof AssignGroupsBody>;

export const AssignGroupsResponse = Type.Object({
  data: Type.Array(GroupAssignmentResponse, { description: 'The assignments of the seller to every requested group' }),
  created: Type.Integer({ description: 'How many of them are new (0 on a repeated call)' }),
});
