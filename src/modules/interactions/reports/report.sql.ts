/**
 * The conversation reports' statement (report.repository.ts): one entity over a range of local days, per day
 * in the entity's time zone and per agent, queue or channel (or not at all). The counts sum the 15-minute
 * slots of conversation_activity_slot (a slot never straddles a local midnight: every zone's offset is a
 * multiple of 15 minutes); the percentiles read only the measured events (first responses, resolutions)
 * from their covering index, so neither reads the messages' events.
 */
import { sql, type SQL } from 'drizzle-orm';
import { shapedStatement, statement } from '../../../db/statement.js';
import type { REPORT_GROUPINGS } from '../model/index.js';

/** What a report row is grouped by besides the day. */
export type ReportGroup = (typeof REPORT_GROUPINGS)[number];

/** The group's key on rows of `t` (the slots and the events share the attribution columns); compared as is, shown as text. */
const key = (group: ReportGroup, t: 's' | 'e' | 'r'): SQL =>
  ({
    none: sql`null::int`,
    agent: sql.raw(`${t}.assignee_employee_id`),
    queue: sql.raw(`${t}.queue_id`),
    channel: sql.raw(`${t}.channel_type_code`),
  })[group];

/**
 * Placeholders: `entityId`, `timeZone` (IANA), `from` and `to` (local dates, both included), `agentId`
 * (null: every agent; else only events attributed to that agent). Rows: `day` (YYYY-MM-DD), `key` (the
 * group's id or code as text, null for none), the counts, the first response and resolution medians and
 * 90th percentiles (calendar seconds, interpolated), `sla_total` (resolutions whose conversation had an SLA
 * policy applied before them) and `sla_met` (those without an `sla_breached` in their episode).
 */
export const DAILY_REPORT = shapedStatement('interactions_daily_report', {
  shapes: ['none', 'agent', 'queue', 'channel'] as ReportGroup[],
  build: (group) => {
    const entityId = sql`${sql.placeholder('entityId')}::int`;
    const tz = sql`${sql.placeholder('timeZone')}::text`;
    const agentId = sql`${sql.placeholder('agentId')}::int`;
    return sql`
with days as (
  -- The local days of the range and their bounds (local midnights, so 15-minute slot edges): rows are
  -- matched to a day by index range, not by converting each row's time.
  select d.day, d.day::timestamp at time zone ${tz} as lo, (d.day + 1)::timestamp at time zone ${tz} as hi
    from (select ${sql.placeholder('from')}::date + i as day
            from generate_series(0, ${sql.placeholder('to')}::date - ${sql.placeholder('from')}::date) i) d
), range as (
  select min(lo) as lo, max(hi) as hi from days
), counts as (
  select d.day, ${key(group, 's')} as key,
         sum(s.opened)::int as opened, sum(s.resolved)::int as resolved, sum(s.reopened)::int as reopened,
         sum(s.messages_in)::int as messages_in, sum(s.messages_out)::int as messages_out
    from days d
    join conversation_activity_slot s on s.entity_id = ${entityId} and s.slot >= d.lo and s.slot < d.hi
   where ${agentId} is null or s.assignee_employee_id = ${agentId}
   group by 1, 2
), policies as (
  select p.conversation_id, min(p.at) as at
    from range, conversation_event p
   where p.entity_id = ${entityId} and p.kind = 'sla_policy_applied' and p.at < range.hi
   group by p.conversation_id
), sla as (
  -- From the conversations with a policy (by the partial SLA index) to their resolutions of the range,
  -- counted apart so the measured events are not joined to them.
  select (r.at at time zone ${tz})::date as day, ${key(group, 'r')} as key, count(*)::int as sla_total,
         count(*) filter (where not exists (
           select 1 from conversation_event b
            where b.conversation_id = r.conversation_id and b.kind = 'sla_breached' and b.at <= r.at
              and b.at >= coalesce((r.data->>'since')::timestamptz, '-infinity'::timestamptz)))::int as sla_met
    from range, policies p
    join conversation_event r on r.conversation_id = p.conversation_id and r.kind = 'resolved' and r.at >= p.at
   where r.entity_id = ${entityId} and r.at >= range.lo and r.at < range.hi
     and (${agentId} is null or r.assignee_employee_id = ${agentId})
   group by 1, 2
), measures as (
  -- The measured events only, from their covering index; one sort per group and kind for both percentiles
  -- (the kind sorted as a boolean: a text comparison per row costs more than the rest of the sort).
  select m.day, m.key, case when m.resolution then 'resolved' else 'first_response' end as kind, m.p
    from (select d.day, ${key(group, 'e')} as key, e.kind = 'resolved' as resolution,
                 percentile_cont(array[0.5, 0.9]) within group (order by e.duration_seconds) as p
            from days d
            join conversation_event e on e.entity_id = ${entityId} and e.kind in ('first_response', 'resolved') and e.at >= d.lo and e.at < d.hi
           where ${agentId} is null or e.assignee_employee_id = ${agentId}
           group by 1, 2, 3) m
)
select to_char(u.day, 'YYYY-MM-DD') as day, u.key::text as key,
       sum(u.opened)::int as opened, sum(u.resolved)::int as resolved, sum(u.reopened)::int as reopened,
       max(u.p[1]) filter (where u.kind = 'first_response') as first_response_median,
       max(u.p[2]) filter (where u.kind = 'first_response') as first_response_p90,
       max(u.p[1]) filter (where u.kind = 'resolved') as resolution_median,
       max(u.p[2]) filter (where u.kind = 'resolved') as resolution_p90,
       sum(u.sla_total)::int as sla_total, sum(u.sla_met)::int as sla_met,
       sum(u.messages_in)::int as messages_in, sum(u.messages_out)::int as messages_out
  from (select c.day, c.key, c.opened, c.resolved, c.reopened, c.messages_in, c.messages_out,
               null::text as kind, null::float8[] as p, 0 as sla_total, 0 as sla_met
          from counts c
        union all
        select m.day, m.key, 0, 0, 0, 0, 0, m.kind, m.p, 0, 0
          from measures m
        union all
        select l.day, l.key, 0, 0, 0, 0, 0, null, null, l.sla_total, l.sla_met
          from sla l) u
 group by u.day, u.key
-- Slots emptied by a conversation's deletion make no row, as a day without events has none.
having sum(u.opened + u.resolved + u.reopened + u.messages_in + u.messages_out) > 0 or count(u.kind) > 0
 order by u.day, u.key nulls first`;
  },
});

/**
 * The kept days (conversation_report_day) of entity `$1`, time zone `$2` and grouping `$3` from local day
 * `from` to `to` (both included); shape `true` for one agent's rows (`agentId`), `false` for every agent's.
 * Rows: `day` (YYYY-MM-DD) and `rows` (the day's DAILY_REPORT rows).
 */
export const KEPT_REPORT_DAYS = shapedStatement('interactions_kept_report_days', {
  shapes: [false, true],
  build: (oneAgent) => sql`
select to_char(d.day, 'YYYY-MM-DD') as day, d.rows
  from conversation_report_day d
 where d.entity_id = ${sql.placeholder('entityId')}::int and d.time_zone = ${sql.placeholder('timeZone')}::text
   and d.grouping = ${sql.placeholder('group')}::text
   and ${oneAgent ? sql`d.agent_employee_id = ${sql.placeholder('agentId')}::int` : sql`d.agent_employee_id is null`}
   and d.day between ${sql.placeholder('from')}::date and ${sql.placeholder('to')}::date`,
});

/**
 * The entity's report lock (`$1`: entity id), exclusive: taken before days are kept, so that a statement
 * writing late events (migration 0021's trigger, which takes it shared) either committed before the
 * report's statement ran or deletes the days once the report committed.
 */
export const LOCK_REPORT_DAYS = statement('interactions_lock_report_days', 'select pg_advisory_xact_lock(1919250532, $1::int)');

/**
 * Keeps days of a report: `$1` entity, `$2` time zone, `$3` grouping, `$4` agent (null: every agent), `$5`
 * a JSON array of `{ day, rows }`, `$6` minutes. Only the days that ended at least `$6` minutes before the
 * transaction's start are written (an event is late, and handled by the trigger, once it is 5 minutes
 * old); a day kept already stays as it is.
 */
export const KEEP_REPORT_DAYS = statement(
  'interactions_keep_report_days',
  `insert into conversation_report_day (entity_id, time_zone, grouping, agent_employee_id, day, lo, hi, rows)
select $1::int, $2::text, $3::text, $4::int, k.day, k.day::timestamp at time zone $2::text, (k.day + 1)::timestamp at time zone $2::text, k.rows
  from jsonb_to_recordset($5::jsonb) as k(day date, rows jsonb)
 where (k.day + 1)::timestamp at time zone $2::text <= now() - make_interval(mins => $6::int)
on conflict on constraint conversation_report_day_key do nothing`,
);
