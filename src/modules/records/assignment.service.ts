/**
 * Seller assignments (SPEC "Cartera": the seller of a lead is its direct assignment, else the one
 * inherited from its group). Each change publishes `lead.assigned` / `lead.unassigned` in its transaction
 * (durable consumers such as workflows get a job; in-process subscribers hear it after the commit), once per
 * affected lead: `via: 'lead'` for a direct assignment, `via: 'group'` for each lead of a group.
 */
import { transaction, type PublishingUnitOfWork } from '../../platform/transactions/transaction.js';
import { toPage } from '../../platform/http/pagination.js';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { IdentityService } from '../identity/index.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import type { Page } from '../../platform/http/pagination.js';
import {
  deleteGroupAssignment,
  deleteLeadAssignment,
  existingGroupIds,
  groupAssignmentsOf,
  insertGroupAssignments,
  leadsOfGroups,
  listGroupAssignments,
  listLeadAssignments,
  upsertLeadAssignment,
  type GroupAssignmentRow,
  type LeadAssignmentRow,
} from './assignment.repository.js';
import type {
  AssignGroupsBody,
  CreateLeadAssignmentBody,
  GroupAssignmentListQuery,
  GroupAssignmentResponse,
  LeadAssignmentListQuery,
  LeadAssignmentResponse,
} from './assignment.schemas.js';
import { findLead } from './lead.repository.js';

const toLeadAssignmentResponse = (r: LeadAssignmentRow): LeadAssignmentResponse => ({
  id: r.id,
  lead_id: r.leadId,
  employee_id: r.employeeId,
  created_at: r.createdAt.toISOString(),
});
const toGroupAssignmentResponse = (r: GroupAssignmentRow): GroupAssignmentResponse => ({
  id: r.id,
  group_id: r.groupId,
  employee_id: r.employeeId,
  created_at: r.createdAt.toISOString(),
});

export function createAssignmentService(deps: { db: Db; events: EventBus; identity: Pick<IdentityService, 'assertActiveMember'> }) {
  const { db, events } = deps;
  const assertSeller = (entityId: number, employeeId: number) => deps.identity.assertActiveMember(entityId, employeeId, '/body/employee_id');

  /** In `unit`: one event per lead of `groupIds` (the leads that inherit the seller through their group). */
  async function publishForGroups(
    unit: PublishingUnitOfWork,
    name: 'lead.assigned' | 'lead.unassigned',
    caller: Principal,
    employeeId: number,
    groupIds: number[],
  ) {
    const occurredAt = new Date().toISOString();
    for (const l of await leadsOfGroups(unit.tx, caller.entityId, groupIds)) {
      unit.events.domainEvent(name, {
        entityId: caller.entityId,
        leadId: l.id,
        groupId: l.groupId,
        employeeId,
        via: 'group',
        changedByEmployeeId: caller.employeeId,
        occurredAt,
      });
    }
  }

  return {
    async listLeadAssignments(caller: Principal, q: LeadAssignmentListQuery): Promise<Page<LeadAssignmentResponse>> {
      const { rows, total } = await listLeadAssignments(db, caller.entityId, { ...q, leadId: q.lead_id, employeeId: q.employee_id });
      return toPage(q, rows, total, toLeadAssignmentResponse);
    },
    async listGroupAssignments(caller: Principal, q: GroupAssignmentListQuery): Promise<Page<GroupAssignmentResponse>> {
      const { rows, total } = await listGroupAssignments(db, caller.entityId, { ...q, groupId: q.group_id, employeeId: q.employee_id });
      return toPage(q, rows, total, toGroupAssignmentResponse);
    },

    /**
     * Idempotent: a repeated call returns the existing assignment with `created: false` and publishes
     * nothing. `caller` may be the system (a workflow step): `employeeId` null.
     */
    async assignLead(caller: Pick<Principal, 'entityId'> & { employeeId: number | null }, body: CreateLeadAssignmentBody) {
      const target = await findLead(db, caller.entityId, body.lead_id);
      if (!target) throw validationFailed([{ field: '/body/lead_id', message: `lead ${body.lead_id} not found` }]);
      await assertSeller(caller.entityId, body.employee_id);
      const { row, created } = await transaction(
        db,
        async ({ tx, events: out }) => {
          const upserted = await upsertLeadAssignment(tx, caller.entityId, target.id, body.employee_id);
          if (upserted.created) {
            out.domainEvent('lead.assigned', {
              entityId: caller.entityId,
              leadId: target.id,
              groupId: target.groupId,
              employeeId: upserted.row.employeeId,
              via: 'lead',
              changedByEmployeeId: caller.employeeId,
              occurredAt: upserted.row.createdAt.toISOString(),
            });
          }
          return upserted;
        },
        { events },
      );
      return { assignment: toLeadAssignmentResponse(row), created };
    },

    async unassignLead(caller: Principal, id: number): Promise<void> {
      await transaction(
        db,
        async ({ tx, events: out }) => {
          const row = await deleteLeadAssignment(tx, caller.entityId, id);
          if (!row) throw notFound('lead_assignment', id);
          const target = await findLead(tx, caller.entityId, row.leadId);
          out.domainEvent('lead.unassigned', {
            entityId: caller.entityId,
            leadId: row.leadId,
            groupId: target?.groupId ?? 0,
            employeeId: row.employeeId,
            via: 'lead',
            changedByEmployeeId: caller.employeeId,
            occurredAt: new Date().toISOString(),
          });
        },
        { events },
      );
    },

    /**
     * The canonical cartera mutation: assigns one seller to several groups at once. Idempotent (existing
     * pairs are kept, `created` counts the new ones). 400 naming unknown or foreign group ids; nothing is written then.
     */
    async assignGroups(caller: Principal, body: AssignGroupsBody) {
      await assertSeller(caller.entityId, body.employee_id);
      const known = new Set(await existingGroupIds(db, caller.entityId, body.group_ids));
      const missing = body.group_ids.filter((id) => !known.has(id));
      if (missing.length > 0) {
        throw validationFailed(missing.map((id) => ({ field: `/body/group_ids/${body.group_ids.indexOf(id)}`, message: `group ${id} not found` })));
      }
      const created = await transaction(
        db,
        async (unit) => {
          const inserted = await insertGroupAssignments(unit.tx, caller.entityId, body.employee_id, body.group_ids);
          await publishForGroups(
            unit,
            'lead.assigned',
            caller,
            body.employee_id,
            inserted.map((r) => r.groupId),
          );
          return inserted;
        },
        { events },
      );
      const all = await groupAssignmentsOf(db, caller.entityId, body.employee_id, body.group_ids);
      return { data: all.map(toGroupAssignmentResponse), created: created.length };
    },

    async unassignGroup(caller: Principal, id: number): Promise<void> {
      await transaction(
        db,
        async (unit) => {
          const row = await deleteGroupAssignment(unit.tx, caller.entityId, id);
          if (!row) throw notFound('group_assignment', id);
          await publishForGroups(unit, 'lead.unassigned', caller, row.employeeId, [row.groupId]);
        },
        { events },
      );
    },
  };
}
export type AssignmentService = ReturnType<typeof createAssignmentService>;
