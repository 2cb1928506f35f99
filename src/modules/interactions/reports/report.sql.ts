/**
 * The conversation reports' statement (report.repository.ts): one entity over a range of local days, per day
 * in the entity's time zone and per agent, queue or channel (or not at all). The counts sum the 15-minute
 * slots of conversation_activity_slot (a slot never straddles a local midnight: every zone's offset is a
 * multiple of 15 minutes); the percentiles read only the measured events (first responses, resolutions)
 * from their covering index, so neither reads the messages' events. By label (LABELLED_DAILY_REPORT), the
 * labelled conversations' own events instead: the slots know no conversation.
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
 * A report's rows from its CTEs `counts` (day, key, the five counts), `measures` (day, key, kind, `p`: the
 * median and 90th percentile) and `sla` (day, key, sla_total, sla_met), per day and key.
 */
const REPORT_ROWS = sql.raw(`
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
 order by u.day, u.key nulls first`);

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
${REPORT_ROWS}`;
  },
});

/** What a report from the labelled conversations' events is grouped by: the slot report's groupings, or each label. */
export type LabelReportGroup = ReportGroup | 'label';

/**
 * The daily report of the conversations carrying labels, by their labels as they are now (`conversation.label_ids`,
 * the conversation's own, its contact's and its lead's; docs/decisions.md "Reports by label"). The slots know no
 * conversation, so every figure is read from the events of those conversations (found by the labels' index), by
 * the log's `(conversation_id, kind, at)` index or the measured events' one: the counted kinds, the measured ones
 * and the resolutions of conversations with an SLA policy, apart as in DAILY_REPORT. Placeholders as DAILY_REPORT's, and `labels` (`integer[]`, or null): only conversations carrying any
 * of them (shapes other than `label` need it; a slot report answers without). Shape `label`: a row per day and label
 * of the conversation (a conversation with two labels counts in both rows), only the labels in `labels` when given;
 * the key is the label id. Rows as DAILY_REPORT's.
 */
export const LABELLED_DAILY_REPORT = shapedStatement('interactions_labelled_daily_report', {
  shapes: ['none', 'agent', 'queue', 'channel', 'label'] as LabelReportGroup[],
  build: (group) => {
    const entityId = sql`${sql.placeholder('entityId')}::int`;
    const tz = sql`${sql.placeholder('timeZone')}::text`;
    const agentId = sql`${sql.placeholder('agentId')}::int`;
    const labels = sql`${sql.placeholder('labels')}::integer[]`;
    const byLabel = group === 'label';
    // Shape label: an event counts under each label of its conversation `x` (those of the filter, when given).
    const perLabel = byLabel ? sql`cross join unnest(x.label_ids) l(label_id)` : sql``;
    const labelPicked = byLabel ? sql`and (${labels} is null or l.label_id = any(${labels}))` : sql``;
    const keyOf = (t: 'e' | 'r') => (byLabel ? sql`l.label_id` : key(group, t));
    // The range's bounds written out (not a CTE's columns), so that the planner estimates the events they hold.
    const inRange = (t: 'e' | 'r') => {
      const ev = sql.raw(t);
      return sql`${ev}.at >= ${sql.placeholder('from')}::date::timestamp at time zone ${tz} and ${ev}.at < (${sql.placeholder('to')}::date + 1)::timestamp at time zone ${tz}
     and (${agentId} is null or ${ev}.assignee_employee_id = ${agentId})`;
    };
    return sql`
with labelled as (
  -- label_ids <> '{}' names the partial index of labelled conversations (conversation_label_ids_idx) to the planner.
  select c.id, c.label_ids
    from conversation c
   where c.entity_id = ${entityId} and c.label_ids <> '{}'::integer[] and (${labels} is null or c.label_ids && ${labels})
), counted as (
  -- Shape label: per day and set of labels first (the sets are few), then per label of the set.
  select (e.at at time zone ${tz})::date as day, ${byLabel ? sql`x.label_ids` : key(group, 'e')} as key,
         count(*) filter (where e.kind = 'opened')::int as opened, count(*) filter (where e.kind = 'resolved')::int as resolved,
         count(*) filter (where e.kind = 'reopened')::int as reopened, count(*) filter (where e.kind = 'message_in')::int as messages_in,
         count(*) filter (where e.kind = 'message_out')::int as messages_out
    from labelled x
    join conversation_event e on e.conversation_id = x.id and e.kind in ('opened', 'resolved', 'reopened', 'message_in', 'message_out')
   where ${inRange('e')}
   group by 1, 2
), counts as (${
      byLabel
        ? sql`
  select c.day, l.label_id as key, sum(c.opened)::int as opened, sum(c.resolved)::int as resolved, sum(c.reopened)::int as reopened,
         sum(c.messages_in)::int as messages_in, sum(c.messages_out)::int as messages_out
    from counted c
   cross join unnest(c.key) l(label_id)
   where true ${labelPicked}
   group by 1, 2`
        : sql`
  select * from counted`
    }
), measures as (
  select m.day, m.key, case when m.resolution then 'resolved' else 'first_response' end as kind, m.p
    from (select (e.at at time zone ${tz})::date as day, ${keyOf('e')} as key, e.kind = 'resolved' as resolution,
                 percentile_cont(array[0.5, 0.9]) within group (order by e.duration_seconds) as p
            from labelled x
            join conversation_event e on e.conversation_id = x.id and e.kind in ('first_response', 'resolved') ${perLabel}
           where ${inRange('e')} ${labelPicked}
           group by 1, 2, 3) m
), sla as (
  select (r.at at time zone ${tz})::date as day, ${keyOf('r')} as key, count(*)::int as sla_total,
         count(*) filter (where not exists (
           select 1 from conversation_event b
            where b.conversation_id = r.conversation_id and b.kind = 'sla_breached' and b.at <= r.at
              and b.at >= coalesce((r.data->>'since')::timestamptz, '-infinity'::timestamptz)))::int as sla_met
    from labelled x
    join conversation_event r on r.conversation_id = x.id and r.kind = 'resolved' ${perLabel}
   where ${inRange('r')} ${labelPicked}
     and exists (select 1 from conversation_event p where p.conversation_id = r.conversation_id and p.kind = 'sla_policy_applied' and p.at <= r.at)
   group by 1, 2
)
${REPORT_ROWS}`;
  },
});

/**
 * How LABELLED_DAILY_REPORT, run after it in the same transaction, is planned, until the transaction ends. Planned
 * for its values each time (`plan_cache_mode`): its best plan depends on how many conversations the labels cover and
 * on the range, and a plan cached for other values (after five runs) took 6 times as long for a small label. No JIT:
 * the planner takes each conversation for ten labels (its guess for an array it cannot see) and estimates a cost that
 * makes PostgreSQL compile and optimize the statement, which took longer than running it (1–2 s against 0.8 s on the
 * benchmark). The embedded database has no JIT; the setting exists there too.
 */
export const PLAN_LABELLED_REPORT = statement(
  'interactions_plan_labelled_report',
  "select set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true)",
);

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
