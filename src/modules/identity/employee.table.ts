import { idColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from './entity.table.js';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, pgView, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { appUser } from './user.table.js';

/**
 * A user's membership of one entity (sellers and agents are employees). An active employee row is what
 * lets a user log into, switch to and act in that entity.
 */
export const employee = pgTable(
  'employee',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    userId: integer()
      .notNull()
      .references(() => appUser.id),
    name: text().notNull(),
    erpEmployeeId: integer(),
    isActive: boolean().notNull().default(true),
    ...timestampColumns(),
  },
  (t) => [uniqueIndex('employee_user_id_entity_id_uq').on(t.userId, t.entityId), index('employee_entity_id_idx').on(t.entityId)],
);

/**
 * The active employees of every entity: the view identity publishes for SQL in other modules that must
 * join members (routing picks agents among them). Reading it is the contract; the table stays identity's.
 */
export const activeEmployee = pgView('active_employee', {
  id: integer().notNull(),
  entityId: integer().notNull(),
  userId: integer().notNull(),
  name: text().notNull(),
}).as(sql`select id, entity_id, user_id, name from employee where is_active`);
