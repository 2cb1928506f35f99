import { sql } from 'drizzle-orm';
import { boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumn, timestampColumns } from '../../../db/columns.js';
import { entityIdColumn } from '../../identity/entity.table.js';
import { lead } from '../../records/lead.table.js';
import { conversation } from './conversation.table.js';
import { CHANNEL_TYPE_CODES, SLA_METRICS, SLA_TIME_BASES } from './interactions.enums.js';
import { routingQueue } from './routing.table.js';

/**
 * An entity's working time (issue 31): weekly `intervals` (`[{ day: 1..7 ISO weekday, start: "HH:MM", end:
 * "HH:MM" }]`, `end` ≤ `start` crossing midnight) in `time_zone` (IANA; the entity's when created) and
 * `holidays` (`["YYYY-MM-DD"]`). One row per entity with `routing_queue_id` null, and at most one override per
 * routing queue.
 */
export const businessHours = pgTable(
  'business_hours',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    routingQueueId: integer().references(() => routingQueue.id, { onDelete: 'cascade' }),
    timeZone: text().notNull(),
    intervals: jsonb().$type<{ day: number; start: string; end: string }[]>().notNull(),
    holidays: jsonb().$type<string[]>().notNull(),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('business_hours_entity_id_uq')
      .on(t.entityId)
      .where(sql`routing_queue_id is null`),
    uniqueIndex('business_hours_routing_queue_id_uq')
      .on(t.routingQueueId)
      .where(sql`routing_queue_id is not null`),
  ],
);

/**
 * An SLA policy (issue 31): targets in minutes (`time_basis` business or calendar) for the first response, the
 * next response after a customer's message and the resolution; which conversations it covers (at most one of
 * `lead_id`, `routing_queue_id`, `channel_type_code`; none: the entity's default), and whether pending and
 * snoozed pause its clocks. The order a conversation's policy is chosen in: docs/api/interactions.md.
 */
export const slaPolicy = pgTable(
  'sla_policy',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    position: integer().notNull().default(0),
    leadId: integer().references(() => lead.id, { onDelete: 'cascade' }),
    routingQueueId: integer().references(() => routingQueue.id, { onDelete: 'cascade' }),
    channelTypeCode: text({ enum: CHANNEL_TYPE_CODES }),
    firstResponseMinutes: integer(),
    nextResponseMinutes: integer(),
    resolutionMinutes: integer(),
    timeBasis: text({ enum: SLA_TIME_BASES }).notNull().default('business'),
    atRiskShare: doublePrecision().notNull().default(0.8),
    pauseOnPending: boolean().notNull().default(true),
    pauseOnSnoozed: boolean().notNull().default(true),
    isActive: boolean().notNull().default(true),
    ...timestampColumns(),
  },
  (t) => [index('sla_policy_entity_id_idx').on(t.entityId, t.position, t.id)],
);

/**
 * A missed target, recorded once: unique per conversation, metric and due cycle (`cycle`: the clock's number in
 * the conversation's SLA state, new each time a target's clock starts afresh), whichever instance fires it.
 */
export const conversationSlaBreach = pgTable(
  'conversation_sla_breach',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    conversationId: integer()
      .notNull()
      .references(() => conversation.id, { onDelete: 'cascade' }),
    metric: text({ enum: SLA_METRICS }).notNull(),
    cycle: integer().notNull(),
    /** The policy of the clock (no foreign key: a deleted policy's breaches stay). */
    policyId: integer(),
    dueAt: timestamp({ withTimezone: true }).notNull(),
    breachedAt: timestampColumn(),
  },
  (t) => [
    uniqueIndex('conversation_sla_breach_conversation_id_metric_cycle_uq').on(t.conversationId, t.metric, t.cycle),
    index('conversation_sla_breach_entity_id_breached_at_idx').on(t.entityId, t.breachedAt),
  ],
);
