/** TypeBox schemas of the conversation reports (`/interactions/reports/*`). */
import { Type, type Static, type TUnsafe } from 'typebox';
import { LabelIds } from '../../labels/index.js';
import { CHANNEL_TYPE_CODES } from '../model/index.js';

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });
const NullableNumber = (description: string): TUnsafe<number | null> => Type.Unsafe<number | null>({ type: ['number', 'null'], description });
const NullableInteger = (description: string): TUnsafe<number | null> => Type.Unsafe<number | null>({ type: ['integer', 'null'], description });

const REPORT_GROUPS = ['agent', 'queue', 'channel', 'label'] as const;

export const DailyReportQuery = Type.Object({
  from: Day("First local day of the report (YYYY-MM-DD, in the entity's time zone), included"),
  to: Day('Last local day, included; at most 366 days after `from`'),
  group_by: Type.Optional(
    Type.Enum(REPORT_GROUPS, {
      description:
        "Rows per day and agent (the assignee when each event happened), routing queue, channel or label (the conversation's labels now: its own, its contact's and its lead's; a conversation with two labels counts in both rows, one without labels in none); without it one row per day. Without `reports.view` only `agent`, and only the caller's own rows",
    }),
  ),
  label: Type.Optional({
    ...LabelIds,
    description:
      "Only conversations carrying any of these labels now (repeat the parameter: `label=3&label=8`); with group_by=label, only these labels' rows. Another entity's label matches nothing",
  }),
});
export type DailyReportQuery = Static<typeof DailyReportQuery>;

export const DailyReportRow = Type.Object({
  date: Day("The local day (the entity's time zone)"),
  agent_id: Type.Optional(NullableInteger('group_by=agent: the employee the events were attributed to; null for unassigned conversations')),
  queue_id: Type.Optional(NullableInteger('group_by=queue: the routing queue; null for none')),
  channel: Type.Optional(Type.Enum(CHANNEL_TYPE_CODES, { description: 'group_by=channel: the channel type code' })),
  label_id: Type.Optional(Type.Integer({ description: "group_by=label: one of the labels the conversations carry now (the entity's catalogue, GET /labels)" })),
  conversations_opened: Type.Integer(),
  conversations_resolved: Type.Integer(),
  conversations_reopened: Type.Integer({ description: 'Resolved conversations opened again (by an agent or a customer writing)' }),
  first_response_median_seconds: NullableNumber(
    'Median seconds from the opening to the first message an employee sent, of first responses this day; null when none',
  ),
  first_response_p90_seconds: NullableNumber('90th percentile (interpolated) of the same'),
  resolution_median_seconds: NullableNumber('Median seconds from the opening (or the last reopening) to the resolution, of resolutions this day'),
  resolution_p90_seconds: NullableNumber('90th percentile (interpolated) of the same'),
  sla_achievement_pct: NullableNumber(
    'Of the resolutions this day whose conversation had an SLA policy, the percentage with no SLA breach since the opening or reopening; null when none had a policy',
  ),
  messages_in: Type.Integer(),
  messages_out: Type.Integer(),
});
export type DailyReportRow = Static<typeof DailyReportRow>;

export const DailyReport = Type.Object({
  time_zone: Type.String({ description: "The entity's IANA time zone the days are counted in" }),
  from: Day('As asked'),
  to: Day('As asked'),
  group_by: Type.Union([Type.Enum(REPORT_GROUPS), Type.Null()]),
  rows: Type.Array(DailyReportRow, { description: 'Days and groups with at least one event, by day then group (null first)' }),
});
export type DailyReport = Static<typeof DailyReport>;
