/** The statement of inbound-message.repository.ts: a batch of inbound messages recorded at once. */
import { statement } from '../../../db/statement.js';

const NEWER = `(c.last_message_at is null or ins.occurred_at >= c.last_message_at)`;
/** An inbound message opens a pending, snoozed or resolved conversation again (conversations/conversation-lifecycle.ts). */
const REOPENS = `(ins.direction = 'inbound' and c.status <> 'open')`;

/** Records the messages of the arrays `$1`..`$15` (see inbound-message.repository.ts). */
export const RECORD_MESSAGES = statement(
  'interactions_record_messages',
  `
with x as (
  select * from unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[],
                       $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::bigint[], $14::text[], $15::text[])
    as x(ord, account_id, entity_id, external_chat_id, direction, type, text, content,
         external_message_id, reply_to_external_id, media_id, occurred_at, occurred_at_ms, preview, sender_name)
), target as (
  select x.*, c.id as conversation_id, c.contact_id, c.last_inbound_at as previous_last_inbound_at, c.status as previous_status
    from x
    join conversation c on c.entity_channel_account_id = x.account_id and c.external_chat_id = x.external_chat_id
     for update of c
), ins as (
  insert into message (entity_id, conversation_id, direction, type, text, content, external_message_id, reply_to_external_id,
                       media_id, status, status_rank, sent_at, occurred_at, occurred_at_ms)
  select t.entity_id, t.conversation_id, t.direction, t.type, t.text, t.content, t.external_message_id, t.reply_to_external_id,
         t.media_id, case when t.direction = 'inbound' then null else 'sent' end, case when t.direction = 'inbound' then 0 else 1 end,
         case when t.direction = 'inbound' then null else t.occurred_at end, t.occurred_at, t.occurred_at_ms
    from target t
  on conflict do nothing
  returning *
), upd as (
  update conversation c
     set last_message_id = case when ${NEWER} then ins.id else c.last_message_id end,
         last_message_preview = case when ${NEWER} then t.preview else c.last_message_preview end,
         last_message_at = case when ${NEWER} then ins.occurred_at else c.last_message_at end,
         unread_count = c.unread_count + case when ins.direction = 'inbound' then 1 else 0 end,
         last_inbound_at = case when ins.direction = 'inbound' then greatest(c.last_inbound_at, ins.occurred_at) else c.last_inbound_at end,
         sender_name = coalesce(t.sender_name, c.sender_name),
         status = case when ${REOPENS} then 'open' else c.status end,
         snoozed_until = case when ${REOPENS} then null else c.snoozed_until end,
         status_changed_at = case when ${REOPENS} then now() else c.status_changed_at end,
         status_changed_by = case when ${REOPENS} then null else c.status_changed_by end,
         updated_at = now()
    from ins join target t on t.conversation_id = ins.conversation_id
   where c.id = ins.conversation_id
  returning c.*
)
select t.ord, t.previous_last_inbound_at, t.previous_status,
       exists (select 1 from routing_queue q where q.entity_id = t.entity_id) as entity_has_queues,
       exists (select 1 from sla_policy p where p.entity_id = t.entity_id and p.is_active) as entity_has_sla_policy,
       -- A conversation opened before this one in which the contact wrote: before this statement, or in it.
       (t.direction = 'inbound' and t.previous_last_inbound_at is null and t.contact_id is not null and exists (
          select 1 from conversation o
           where o.contact_id = t.contact_id and o.entity_id = t.entity_id and o.id < t.conversation_id
             and (o.last_inbound_at is not null or exists (select 1 from ins i where i.conversation_id = o.id and i.direction = 'inbound'))
       )) as contact_wrote_elsewhere,
       row_to_json(ins) as message, row_to_json(upd) as conversation
  from target t
  left join ins on ins.conversation_id = t.conversation_id
  left join upd on upd.id = t.conversation_id`,
);
