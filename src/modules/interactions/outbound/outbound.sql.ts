/** Statements of every send (outbound.repository.ts): finding the conversation, storing, claiming, recording the acceptance. */
import { statement } from '../../../db/statement.js';

/** Conversation `$2` of entity `$1` (as JSON) with the account its messages leave from. */
export const FIND_SENDING_CONVERSATION = statement(
  'interactions_find_sending_conversation',
  `
select row_to_json(c) as conversation, a.id as account_id, a.external_account_id, a.channel_type_code, a.is_active
  from conversation c
  join entity_channel_account a on a.id = c.entity_channel_account_id
 where c.entity_id = $1 and c.id = $2`,
);

/** Stores a pending outbound message (`$1`..`$12`) and makes it the conversation's latest (preview `$13`). */
export const INSERT_PENDING = statement(
  'interactions_insert_pending',
  `
with m as (
  insert into message (entity_id, conversation_id, direction, type, text, content, external_message_id, client_message_id,
                       reply_to_external_id, sent_by_employee_id, origin, occurred_at, occurred_at_ms, status, status_rank)
  values ($1, $2, 'outbound', $3, $4, $5::jsonb, $6, $7, $8, $9, $10::jsonb, $11, $12, 'pending', 0)
  returning *
), c as (
  update conversation set last_message_id = m.id, last_message_preview = $13, last_message_at = m.occurred_at, updated_at = now()
    from m
   where conversation.id = m.conversation_id
  returning conversation.*
)
select (select row_to_json(m) from m) as message, (select row_to_json(c) from c) as conversation`,
);

/** Counts one more send attempt of each pending message of ids `$1`. */
export const COUNT_ATTEMPTS = statement(
  'interactions_count_send_attempts',
  `
update message m set send_attempts = m.send_attempts + 1
  from conversation c
  join entity_channel_account a on a.id = c.entity_channel_account_id
 where m.id = any($1::int[]) and m.status = 'pending' and c.id = m.conversation_id
returning row_to_json(m) as message, c.external_chat_id, a.external_account_id`,
);

// One statement (no transaction round trips): each stub is deleted and folded in atomically.
/** Records acceptances (arrays `$1`..`$4`, the rank of `sent` `$5`), folding in stubs of earlier status webhooks. */
export const RECORD_ACCEPTANCES = statement(
  'interactions_record_acceptances',
  `
with accepted as (
  select * from unnest($1::int[], $2::int[], $3::text[], $4::timestamptz[]) as x(id, entity_id, provider_message_id, at)
), stub as (
  delete from message s
   using accepted x
   where s.entity_id = x.entity_id and s.external_message_id = x.provider_message_id and s.id <> x.id
  returning x.id as accepted_id, s.status, s.status_rank, s.sent_at, s.delivered_at, s.read_at, s.failed_at, s.errors
)
update message m set
  external_message_id = x.provider_message_id,
  status = case when coalesce(st.status_rank, 0) > $5::int then st.status else 'sent' end,
  status_rank = greatest($5::int, coalesce(st.status_rank, 0)),
  sent_at = coalesce(st.sent_at, x.at),
  delivered_at = st.delivered_at,
  read_at = st.read_at,
  failed_at = st.failed_at,
  errors = st.errors
  from accepted x
  left join stub st on st.accepted_id = x.id
 where m.id = x.id and m.status = 'pending'
returning m.id, m.status, m.status_rank, m.sent_at, m.delivered_at, m.read_at, m.failed_at, m.errors`,
);
