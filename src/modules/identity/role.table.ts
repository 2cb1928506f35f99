import { idColumn, timestampColumns } from '../../db/columns.js';
import { integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { entity } from './entity.table.js';
import { permission } from '../permissions/permission.table.js';

/**
 * A named set of base permission codes. `entity_id` null marks a global (system) role, such as
 * `super_admin` which grants every code; only a super_admin manages global roles.
 */
export const role = pgTable(
  'role',
  {
    id: idColumn(),
    entityId: integer().references(() => entity.id),
    name: text().notNull(),
    description: text(),
    ...timestampColumns(),
  },
  (t) => [unique('role_entity_id_name_uq').on(t.entityId, t.name).nullsNotDistinct()],
);

export const rolePermission = pgTable(
  'role_permission',
  {
    roleId: integer()
      .notNull()
      .references(() => role.id, { onDelete: 'cascade' }),
    permissionCode: text()
      .notNull()
      .references(() => permission.code),
  },
  (t) => [primaryKey({ name: 'role_permission_pkey', columns: [t.roleId, t.permissionCode] })],
);
