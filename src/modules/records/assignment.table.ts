import { idColumn, entityIdColumn, timestampColumn } from '../../db/columns.js';
import { index, integer, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';
import { employee } from '../admin/employee.table.js';
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
