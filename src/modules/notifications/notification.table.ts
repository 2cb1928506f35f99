import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumn } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';
import { employee } from '../identity/employee.table.js';
import { conversation } from '../interactions/model/conversation.table.js';

/** The kinds of notification (issue 50); `import_finished` and `export_ready` are reserved until their sources exist. */
export const NOTIFICATION_KINDS = ['conversation_assigned', 'mentioned', 'sla_at_risk', 'sla_breached', 'conversation_reopened'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * One notification of one employee (issue 50). `cause_key` names what caused it (an assignment, a note, an SLA
 * target's due instant): unique per employee and kind, so the same cause delivered twice (two instances, a
 * retried job) stores it once. `data` is what the list shows of it; `read_at` null while unread.
 */
export const notification = pgTable(
  'notification',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    employeeId: integer()
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    kind: text({ enum: NOTIFICATION_KINDS }).notNull(),
    causeKey: text().notNull(),
    conversationId: integer().references(() => conversation.id, { onDelete: 'cascade' }),
    actorEmployeeId: integer(),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestampColumn(),
    readAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('notification_employee_id_kind_cause_key_uq').on(t.employeeId, t.kind, t.causeKey),
    // The list, newest first (id order), and its cursor.
    index('notification_entity_id_employee_id_id_idx').on(t.entityId, t.employeeId, t.id),
    // The unread count and "mark all read" read only the unread.
    index('notification_unread_idx')
      .on(t.entityId, t.employeeId)
      .where(sql`${t.readAt} is null`),
  ],
);

/** Per employee and kind: whether the notification centre keeps it (`in_app`); no row is on. */
export const notificationPreference = pgTable(
  'notification_preference',
  {
    entityId: entityIdColumn(),
    employeeId: integer()
      .notNull()
      .references(() => employee.id, { onDelete: 'cascade' }),
    kind: text({ enum: NOTIFICATION_KINDS }).notNull(),
    inApp: boolean().notNull(),
  },
  (t) => [primaryKey({ columns: [t.employeeId, t.kind] })],
);
