import { idColumn, timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgEnum, pgTable, primaryKey, uniqueIndex } from 'drizzle-orm/pg-core';
import { employee } from '../identity/employee.table.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';

/** A seller assigned to a whole group; inherited by every lead of the group (a direct lead assignment wins). */
export const groupAssignment = pgTable(
  'group_assignment',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    groupId: integer()
      .notNull()
      .references(() => crmGroup.id, { onDelete: 'cascade' }),
    employeeId: integer()
      .notNull()
      .references(() => employee.id),
    createdAt: timestampColumn(),
  },
  (t) => [
    uniqueIndex('group_assignment_group_id_employee_id_uq').on(t.groupId, t.employeeId),
    index('group_assignment_entity_id_employee_id_idx').on(t.entityId, t.employeeId),
  ],
);

/** A seller assigned directly to one lead. */
export const leadAssignment = pgTable(
  'lead_assignment',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    leadId: integer()
      .notNull()
      .references(() => lead.id, { onDelete: 'cascade' }),
    employeeId: integer()
      .notNull()
      .references(() => employee.id),
    createdAt: timestampColumn(),
  },
  (t) => [
    uniqueIndex('lead_assignment_lead_id_employee_id_uq').on(t.leadId, t.employeeId),
    index('lead_assignment_entity_id_employee_id_idx').on(t.entityId, t.employeeId),
  ],
);

/** Where a stored seller of a lead comes from: a direct lead assignment or the lead's group. */
export const leadSellerVia = pgEnum('lead_seller_via', ['lead', 'group']);

/**
 * The seller derivation of every lead, stored (SPEC "Cartera": direct lead assignments merged with those
 * inherited from the group, a direct one wins): one row per (lead, seller, source). Derived from
 * `lead_assignment`, `group_assignment` and `lead.group_id`, and rewritten by `refreshLeadSellers` in
 * the transaction of every change to them, so the cartera lists and the seller filters read it with
 * index lookups instead of deriving it per row (docs/decisions.md).
 */
export const leadSeller = pgTable(
  'lead_seller',
  {
    entityId: entityIdColumn(),
    leadId: integer()
      .notNull()
      .references(() => lead.id, { onDelete: 'cascade' }),
    employeeId: integer()
      .notNull()
      .references(() => employee.id),
    via: leadSellerVia().notNull(),
    /** The `lead_assignment` (via lead) or `group_assignment` (via group) id: orders each source's list. */
    assignmentId: integer().notNull(),
    /** An effective seller of the lead: every direct row, and group rows only when the lead has no direct row. */
    effective: boolean().notNull(),
  },
  (t) => [
    primaryKey({ name: 'lead_seller_pkey', columns: [t.leadId, t.employeeId, t.via] }),
    // The seller filters: an entity's leads whose effective sellers include one employee.
    index('lead_seller_entity_id_employee_id_idx')
      .on(t.entityId, t.employeeId, t.leadId)
      .where(sql`${t.effective}`),
  ],
);
