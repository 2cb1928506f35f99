import { date, index, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { entityIdColumn } from '../../identity/entity.table.js';

/** What a daily report's rows are grouped by besides the day (`none`: one row a day). */
export const REPORT_GROUPINGS = ['none', 'agent', 'queue', 'channel'] as const;

/**
 * The daily report's rows of closed days, kept (issue 31; docs/decisions.md "Closed report days are kept"):
 * per entity, time zone, grouping and agent filter (`agent_employee_id`, null for every agent), the rows
 * (`rows`, a JSON array of the statement's rows, `[]` for a day without any) of one local day whose end
 * (`hi`) was at least 10 minutes past when it was computed. A past day's events never change, except those
 * written late (a webhook replayed after an outage, a conversation's deletion): the statement trigger of
 * migration 0021 on `conversation_event` then deletes every kept day of the entity ending after the
 * earliest such event, under the advisory lock the report takes while it keeps days, so a kept day always
 * equals a fresh computation.
 */
export const conversationReportDay = pgTable(
  'conversation_report_day',
  {
    entityId: entityIdColumn(),
    timeZone: text().notNull(),
    grouping: text({ enum: REPORT_GROUPINGS }).notNull(),
    agentEmployeeId: integer(),
    day: date().notNull(),
    /** The day's start and end (local midnights), the range of events it covers. */
    lo: timestamp({ withTimezone: true }).notNull(),
    hi: timestamp({ withTimezone: true }).notNull(),
    rows: jsonb().notNull(),
    computedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('conversation_report_day_key').on(t.entityId, t.timeZone, t.grouping, t.agentEmployeeId, t.day).nullsNotDistinct(),
    // The invalidation's range: an entity's kept days ending after a late event.
    index().on(t.entityId, t.hi),
  ],
);
