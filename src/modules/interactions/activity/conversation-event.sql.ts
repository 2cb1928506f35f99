/** The statement of the conversation event log (conversation-event.log.ts): a transaction's events appended at once. */
import { statement } from '../../../db/statement.js';

/**
 * Appends the events of the arrays `$1`..`$9` (entity, conversation, kind, at, actor, assignee, queue,
 * channel, data), in array order. A `first_response` is measured from the conversation's `opened`, a
 * `resolved` from the latest `opened` or `reopened` at or before it (`data.since`), among the stored rows
 * and those earlier in the arrays; a `first_response` when one is stored, or a second `opened`, is dropped.
 */
export const APPEND_CONVERSATION_EVENTS = statement(
  'interactions_append_conversation_events',
  `
with x as (
  select * from unnest($1::int[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::int[], $7::int[], $8::text[], $9::jsonb[])
    with ordinality as x(entity_id, conversation_id, kind, at, actor_employee_id, assignee_employee_id, queue_id, channel_type_code, data, ord)
), measured as (
  select x.*,
         case x.kind
           when 'first_response' then coalesce(
             (select e.at from conversation_event e where e.conversation_id = x.conversation_id and e.kind = 'opened'),
             (select o.at from x o where o.conversation_id = x.conversation_id and o.kind = 'opened' and o.ord < x.ord))
           when 'resolved' then (
             select max(s.at) from (
               select e.at from conversation_event e
                where e.conversation_id = x.conversation_id and e.kind in ('opened', 'reopened') and e.at <= x.at
               union all
               select o.at from x o where o.conversation_id = x.conversation_id and o.kind in ('opened', 'reopened') and o.ord < x.ord
             ) s)
         end as since
    from x
)
insert into conversation_event (entity_id, conversation_id, kind, at, actor_employee_id, assignee_employee_id, queue_id, channel_type_code,
                                duration_seconds, data)
select m.entity_id, m.conversation_id, m.kind, m.at, m.actor_employee_id, m.assignee_employee_id, m.queue_id, m.channel_type_code,
       greatest(0, extract(epoch from m.at - m.since))::float8,
       case when m.since is null then m.data else m.data || jsonb_build_object('since', m.since) end
  from measured m
 where m.kind <> 'first_response'
    or not exists (select 1 from conversation_event e where e.conversation_id = m.conversation_id and e.kind = 'first_response')
 order by m.ord
on conflict do nothing`,
);
