import { idColumn, timestampColumns } from '../../db/columns.js';
import { sql } from 'drizzle-orm';
import { check, index, integer, pgEnum, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { entity } from './entity.table.js';
import { appUser } from './user.table.js';
import { employee } from './employee.table.js';
import { role } from './role.table.js';
import { permission } from '../permissions/permission.table.js';

export const overrideEffect = pgEnum('override_effect', ['ALLOW', 'DENY']);

/**
 * Links an employee or a user to a role, for one entity or globally (`entity_id` null). SPEC
 * "Permission resolution": employee+entity beats user+entity beats user-global.
 */
export const subscription = pgTable(
  'subscription',
  {
    id: idColumn(),
    employeeId: integer().references(() => employee.id, { onDelete: 'cascade' }),
    userId: integer().references(() => appUser.id, { onDelete: 'cascade' }),
    entityId: integer().references(() => entity.id),
    roleId: integer()
      .notNull()
      .references(() => role.id),
    ...timestampColumns(),
  },
  (t) => [
    check(
      'subscription_subject_check',
      sql`(${t.employeeId} is not null and ${t.userId} is null and ${t.entityId} is not null) or (${t.employeeId} is null and ${t.userId} is not null)`,
    ),
    uniqueIndex('subscription_employee_id_uq')
      .on(t.employeeId)
      .where(sql`${t.employeeId} is not null`),
    uniqueIndex('subscription_user_id_entity_id_uq')
      .on(t.userId, t.entityId)
      .where(sql`${t.userId} is not null and ${t.entityId} is not null`),
    uniqueIndex('subscription_user_id_global_uq')
      .on(t.userId)
      .where(sql`${t.userId} is not null and ${t.entityId} is null`),
    index('subscription_role_id_idx').on(t.roleId),
  ],
);

/** ALLOW adds a code, DENY removes it (a DENY always wins, even over implications). */
export const subscriptionOverride = pgTable(
  'subscription_override',
  {
    subscriptionId: integer()
      .notNull()
      .references(() => subscription.id, { onDelete: 'cascade' }),
    permissionCode: text()
      .notNull()
      .references(() => permission.code),
    effect: overrideEffect().notNull(),
  },
  (t) => [primaryKey({ name: 'subscription_override_pkey', columns: [t.subscriptionId, t.permissionCode] })],
);
