/**
 * Statements of intake.repository.ts: the webhook's insert of new events, the worker's claim (which also makes
 * its transaction's commit asynchronous) and outcomes, and a failed attempt.
 */
import { statement } from '../../../db/statement.js';
import { PLATFORM_CODE_VALUES } from '../channel-accounts/index.js';

/** Inserts the new events (unique event key) of the arrays `$1`..`$7`, first attempt not before `$8`; returns them. */
export const INSERT_NEW = statement(
  'interactions_inbox_insert_new',
  `
  insert into interaction_webhook_inbox (event_key, platform, kind, account_external_id, external_chat_id, occurred_at, event, next_attempt_at)
  select e.event_key, e.platform, e.kind, e.account_external_id, e.external_chat_id, e.occurred_at, e.event, $8::timestamptz
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::jsonb[])
         as e(event_key, platform, kind, account_external_id, external_chat_id, occurred_at, event)
  on conflict do nothing
  returning id, event_key`,
);

/**
 * Locks the pending rows among ids `$1` for the caller's transaction (SKIP LOCKED), resolves their accounts and
 * conversations, and lets that transaction commit without waiting for its WAL flush, in one round trip.
 */
export const CLAIM_BATCH = statement(
  'interactions_inbox_claim_batch',
  `
with async_commit as materialized (
  select set_config('synchronous_commit', 'off', true)
), claimed as (
  select i.id, i.event, i.platform, i.account_external_id, i.external_chat_id
    from interaction_webhook_inbox i, async_commit
   where i.id = any($1::bigint[]) and i.state = 'pending'
     for update of i skip locked
)
select i.id, i.event, a.id as account_id, a.entity_id, a.channel_type_code, c.id as conversation_id
  from claimed i
  left join lateral (
    select a.id, a.entity_id, a.channel_type_code
      from (values ${PLATFORM_CODE_VALUES}) as pc(platform, code)
      join entity_channel_account a on a.channel_type_code = pc.code::channel_type_code and a.external_account_id = i.account_external_id and a.is_active
     where pc.platform = i.platform
     order by a.id
     limit 1
  ) a on true
  left join conversation c on c.entity_channel_account_id = a.id and c.external_chat_id = i.external_chat_id`,
);

/** Ends the attempt of rows `$1`: state `$2` and entity `$3` (arrays of one length). */
export const SET_OUTCOMES = statement(
  'interactions_inbox_set_outcomes',
  `
  update interaction_webhook_inbox i
     set state = x.state, entity_id = x.entity_id, processed_at = now(), attempts = i.attempts + 1, last_error = null
    from unnest($1::bigint[], $2::text[], $3::int[]) as x(id, state, entity_id)
   where i.id = x.id`,
);

/**
 * A failed attempt of row `$5` (if pending): error `$1`; dead when `$2` (permanent) or at attempt `$3`;
 * next attempt after `$4` ms doubled per attempt, at most 5 minutes.
 */
export const RECORD_FAILURE = statement(
  'interactions_inbox_record_failure',
  `
    update interaction_webhook_inbox
       set attempts = attempts + 1,
           last_error = $1,
           state = case when $2::boolean or attempts + 1 >= $3::int then 'dead' else state end,
           next_attempt_at = now() + (least($4::bigint * power(2, attempts)::bigint, 300000) || ' milliseconds')::interval
     where id = $5 and state = 'pending'`,
);
