import { integer, pgTable, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { entityIdColumn } from '../../identity/entity.table.js';
import { CHANNEL_TYPE_CODES } from './interactions.enums.js';

/**
 * The running counts of the conversation event log (issue 31; docs/decisions.md "Conversation reports and
 * the event log"): per entity, 15-minute slot of UTC time (`slot` is its start, `date_bin('15 minutes', at,
 * epoch)`) and attribution (assignee, queue, channel, as on the event), how many `opened`, `resolved`,
 * `reopened`, `message_in` and `message_out` events the log holds. Kept only by the statement triggers of
 * migration 0020 on `conversation_event`, in the transaction that writes the events, so it always equals
 * the log's aggregate; the reports sum slots instead of scanning events. Every time zone offset in use is a
 * multiple of 15 minutes, so each slot lies within one local day of any entity's zone. Each count is split in
 * `shard`s (the writing session's, `pg_backend_pid() % 16`, migration 0028) so that concurrent changes of one
 * entity do not queue on one row; the reports sum them, and a shard may hold a negative part of a count.
 */
export const conversationActivitySlot = pgTable(
  'conversation_activity_slot',
  {
    entityId: entityIdColumn(),
    slot: timestamp({ withTimezone: true }).notNull(),
    assigneeEmployeeId: integer(),
    queueId: integer(),
    channelTypeCode: text({ enum: CHANNEL_TYPE_CODES }).notNull(),
    shard: smallint().notNull().default(0),
    opened: integer().notNull().default(0),
    resolved: integer().notNull().default(0),
    reopened: integer().notNull().default(0),
    messagesIn: integer().notNull().default(0),
    messagesOut: integer().notNull().default(0),
  },
  // One row per slot, attribution ("no assignee" and "no queue" are values too) and shard: the triggers' upsert
  // target and the reports' range scan.
  (t) => [unique('conversation_activity_slot_key').on(t.entityId, t.slot, t.assigneeEmployeeId, t.queueId, t.channelTypeCode, t.shard).nullsNotDistinct()],
);
