/**
 * Leads and clients (SPEC "What the service does": a client is a lead that carries an ERP identifier,
 * not a separate type). Creating one publishes `lead.created` after commit.
 */
import { transaction } from '../../platform/transactions/transaction.js';
import { pageText } from '../../platform/http/pagination.js';
import type { Db } from '../../db/client.js';
import { createCappedCounts } from '../../db/paging.js';
import type { PendingPrincipal, Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import { conflict, notFound, validationFailed } from '../../platform/errors.js';
import { normalizePhone } from './channel-identifier.js';
import { findGroup } from './group.repository.js';
import { labelIdsOf } from './label-link.repository.js';
import { countLeads, deleteLead, findLead, findLeadByErpId, insertLead, listLeads, updateLead, type LeadRow, type LeadValues } from './lead.repository.js';
import { actorOf, type AuditTrail } from '../audit/index.js';
import { refusingReferenced } from './record-deletion.js';
import type { PreparedRunner } from '../../db/prepared-sql.js';
import type { CreateLeadBody, LeadListQuery, LeadResponse, UpdateLeadBody } from './lead.schemas.js';

function toLeadResponse(row: LeadRow, labelIds: number[]): LeadResponse {
  return {
    id: row.id,
    group_id: row.groupId,
    name: row.name,
    kind: row.erpId === null ? 'lead' : 'client',
    erp_id: row.erpId,
    email: row.email,
    phone: row.phone,
    tax_id: row.taxId,
    label_ids: labelIds,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Body fields to column values: trims, lower-cases the e-mail and normalizes the phone to E.164 (400 when impossible). */
function leadValuesOf(body: Partial<CreateLeadBody>): LeadValues {
  const values: LeadValues = {};
  if (body.group_id !== undefined) values.groupId = body.group_id;
  if (body.name !== undefined) values.name = body.name.trim();
  if (body.erp_id !== undefined) values.erpId = body.erp_id === null ? null : body.erp_id.trim();
  if (body.email !== undefined) values.email = body.email === null ? null : body.email.trim().toLowerCase();
  if (body.tax_id !== undefined) values.taxId = body.tax_id;
  if (body.phone !== undefined) {
    if (body.phone === null || body.phone.trim() === '') values.phone = null;
    else {
      const phone = normalizePhone(body.phone);
      if (!phone) throw validationFailed([{ field: '/body/phone', message: 'is not a valid phone number' }]);
      values.phone = phone;
    }
  }
  return values;
}

/** `database` runs the list as a named prepared statement (the hot path); everything else goes through `db`. */
export function createLeadService(deps: { db: Db; events: EventBus; database: PreparedRunner; audit: AuditTrail }) {
  const { db, events, database } = deps;
  const cappedCounts = createCappedCounts();

  async function assertGroup(entityId: number, groupId: number): Promise<void> {
    if (!(await findGroup(db, entityId, groupId))) throw validationFailed([{ field: '/body/group_id', message: `group ${groupId} not found` }]);
  }
  async function assertErpIdFree(entityId: number, erpId: string | null | undefined, leadId?: number): Promise<void> {
    if (!erpId) return;
    const holder = await findLeadByErpId(db, entityId, erpId);
    if (holder && holder.id !== leadId) throw conflict('already_exists', `erp_id ${erpId} already belongs to lead ${holder.id}`, { lead_id: holder.id });
  }

  async function labelIdsOfLead(id: number): Promise<number[]> {
    return (await labelIdsOf(db, 'lead', [id])).get(id) ?? [];
  }

  return {
    /**
     * A page of the lead list as its response body (`LeadListResponse` as JSON text, for `sendJsonText`):
     * the leads' stored list items, joined as they are. The page statement reads the caller's principal
     * along, and nothing of the page is answered before it is confirmed (401/403 otherwise).
     */
    async list(caller: PendingPrincipal, q: LeadListQuery): Promise<string> {
      const filter = { groupId: q.group_id, kind: q.kind, search: q.search, employeeId: q.employee_id, labelAny: q.label, labelAll: q.label_all };
      const page = { limit: q.limit, offset: q.offset };
      const { items, total, capped } = await cappedCounts.page({
        entityId: caller.entityId,
        filter,
        page,
        read: async (counted) => {
          const read = await listLeads(database, caller, { ...filter, ...page }, counted);
          await caller.confirm(read.principal ?? null);
          return read;
        },
        count: () => countLeads(database, caller.entityId, { ...filter, ...page }),
      });
      return pageText(q, items, total, capped);
    },

    /** Throws 404 `not_found` for an unknown id or another entity's lead. */
    async get(caller: Principal, id: number): Promise<LeadResponse> {
      const row = await findLead(db, caller.entityId, id);
      if (!row) throw notFound('lead', id);
      return toLeadResponse(row, await labelIdsOfLead(row.id));
    },

    /** 400 when the group is not the caller's; 409 `already_exists` when the erp_id is taken. */
    async create(caller: Principal, body: CreateLeadBody): Promise<LeadResponse> {
      const values = leadValuesOf(body);
      await assertGroup(caller.entityId, body.group_id);
      await assertErpIdFree(caller.entityId, values.erpId);
      const row = await transaction(
        db,
        async ({ tx, events }) => {
          const created = await insertLead(tx, caller.entityId, { ...values, groupId: body.group_id, name: body.name.trim() });
          events.domainEvent('lead.created', {
            entityId: caller.entityId,
            leadId: created.id,
            groupId: created.groupId,
            createdByEmployeeId: caller.employeeId,
            occurredAt: created.createdAt.toISOString(),
          });
          return created;
        },
        { events },
      );
      return toLeadResponse(row, []);
    },

    /** Setting `erp_id` makes the lead a client; `null` makes it a lead again. Moving groups moves its contacts. */
    async update(caller: Principal, id: number, body: UpdateLeadBody): Promise<LeadResponse> {
      const values = leadValuesOf(body);
      if (!(await findLead(db, caller.entityId, id))) throw notFound('lead', id);
      if (body.group_id !== undefined) await assertGroup(caller.entityId, body.group_id);
      await assertErpIdFree(caller.entityId, values.erpId, id);
      const row = await updateLead(db, caller.entityId, id, values);
      if (!row) throw notFound('lead', id);
      return toLeadResponse(row, await labelIdsOfLead(row.id));
    },

    /**
     * Deletes the lead with its contacts (record-deletion.ts): one audit entry naming its id, group and how many
     * contacts went, never a name. Errors: 404 (another entity's too), 409 `record_in_use`.
     */
    async remove(caller: Principal, id: number): Promise<void> {
      await refusingReferenced('lead', id, () =>
        transaction(db, async ({ tx }) => {
          const gone = await deleteLead(tx, caller.entityId, id);
          if (!gone) throw notFound('lead', id);
          await deps.audit.record(tx, {
            entityId: caller.entityId,
            actor: actorOf(caller),
            action: 'lead.delete',
            target: { type: 'lead', id },
            details: { group_id: gone.groupId, contacts: gone.contacts },
          });
        }),
      );
    },
  };
}
export type LeadService = ReturnType<typeof createLeadService>;
