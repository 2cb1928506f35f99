import { idColumn, timestampColumn } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { employee } from '../../identity/employee.table.js';

/** A group of agents that conversations are handed to (SPEC routing_queue). */
export const routingQueue = pgTable(
  'routing_queue',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    /** The queue used when no filter matches. At most one per entity. */
    isDefault: boolean().notNull().default(false),
    /** Open conversations a member takes when the member sets none. */
    defaultCapacity: integer().notNull().default(10),
    createdAt: timestampColumn(),
  },
  (t) => [index('routing_queue_entity_id_idx').on(t.entityId)],
);

/** An employee in a queue (SPEC routing_queue_member); `position` orders the round robin. */
export const routingQueueMember = pgTable(
  'routing_queue_member',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    queueId: integer()
      .notNull()
      .references(() => routingQueue.id, { onDelete: 'cascade' }),
    employeeId: integer()
      .notNull()
      .references(() => employee.id),
    position: integer().notNull().default(0),
    /** Online and taking conversations; an offline member is never picked. */
    isAvailable: boolean().notNull().default(true),
    /** Maximum open (assigned) conversations; null uses the queue's default. */
    capacity: integer(),
    createdAt: timestampColumn(),
  },
  (t) => [
    uniqueIndex('routing_queue_member_queue_id_employee_id_uq').on(t.queueId, t.employeeId),
    index('routing_queue_member_entity_id_employee_id_idx').on(t.entityId, t.employeeId),
  ],
);

/** A rule choosing a queue for an inbound message (SPEC routing_filter); lowest `priority` first. */
export const routingFilter = pgTable(
  'routing_filter',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    queueId: integer()
      .notNull()
      .references(() => routingQueue.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    priority: integer().notNull().default(100),
    /** RoutingConditions (routing.rules.ts); every condition set must hold. */
    conditions: jsonb().notNull(),
    isActive: boolean().notNull().default(true),
    createdAt: timestampColumn(),
  },
  (t) => [index('routing_filter_entity_id_priority_idx').on(t.entityId, t.priority)],
);

/** Round-robin position of a queue (SPEC routing_rr_cursor): the last position handed a conversation. */
export const routingRrCursor = pgTable('routing_rr_cursor', {
  queueId: integer()
    .primaryKey()
    .references(() => routingQueue.id, { onDelete: 'cascade' }),
  entityId: entityIdColumn(),
  lastPosition: integer().notNull().default(-1),
  lastEmployeeId: integer(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
