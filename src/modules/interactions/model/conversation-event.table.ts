import { sql } from 'drizzle-orm';
import { bigint, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { entityIdColumn } from '../../identity/entity.table.js';
import { conversation } from './conversation.table.js';
import { CHANNEL_TYPE_CODES, CONVERSATION_EVENT_KINDS } from './interactions.enums.js';

/**
 * The append-only conversation event log (issue 31, docs/api/interactions.md "Conversation event log"):
 * one row per fact (opened, assigned, first response, a message in or out, a status change, an SLA policy
 * applied or breached), written in the transaction of the change it records and never updated, so a report
 * over any past range reads the same rows. `at` is the instant of the fact (microseconds); the attribution
 * columns are the conversation's as the change left it: `assignee_employee_id` (null: not assigned),
 * `queue_id`, `channel_type_code`. `actor_employee_id` is who did it (null: the customer or the system).
 * `duration_seconds` is the measured time of a `first_response` (since `opened`) or a `resolved` (since the
 * `opened` or `reopened` that began the episode, also in `data.since`), calendar seconds.
 */
export const conversationEvent = pgTable(
  'conversation_event',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    entityId: entityIdColumn(),
    conversationId: integer()
      .notNull()
      .references(() => conversation.id, { onDelete: 'cascade' }),
    kind: text({ enum: CONVERSATION_EVENT_KINDS }).notNull(),
    at: timestamp({ withTimezone: true, precision: 6 }).notNull(),
    actorEmployeeId: integer(),
    assigneeEmployeeId: integer(),
    queueId: integer(),
    channelTypeCode: text({ enum: CHANNEL_TYPE_CODES }).notNull(),
    durationSeconds: doublePrecision(),
    data: jsonb().notNull().default({}),
  },
  (t) => [
    // The reports' percentiles: an entity's measured events of a range, read from the index alone (the
    // counts come from conversation_activity_slot); `at` right after the entity, so a range is one slice.
    index('conversation_event_measured_idx')
      .on(t.entityId, t.at, t.kind, t.durationSeconds, t.assigneeEmployeeId, t.queueId, t.channelTypeCode)
      .where(sql`${t.kind} in ('first_response', 'resolved')`),
    // The episode a resolution closes, the first response's opening, the SLA events of a conversation.
    index('conversation_event_conversation_id_kind_at_idx').on(t.conversationId, t.kind, t.at),
    // An entity's SLA events (policies applied, breaches): few, read whole by the reports.
    index('conversation_event_entity_id_sla_idx')
      .on(t.entityId, t.kind, t.at)
      .where(sql`${t.kind} in ('sla_policy_applied', 'sla_breached')`),
    // Once per conversation: a second one (a backfill re-run, a race) is dropped.
    uniqueIndex('conversation_event_once_uq')
      .on(t.conversationId, t.kind)
      .where(sql`${t.kind} in ('opened', 'first_response')`),
  ],
);
