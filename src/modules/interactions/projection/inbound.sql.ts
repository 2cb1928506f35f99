/** Statements of inbound.repository.ts. */
import { statement } from '../../../db/statement.js';

/** Inserts conversations of the arrays `$1`..`$8`, skipping chats that have one; returns those created. */
export const INSERT_CONVERSATIONS = statement(
  'interactions_insert_conversations',
  `
  insert into conversation (entity_id, entity_channel_account_id, channel_type_code, external_chat_id, contact_id, lead_id, group_id, sender_name)
  select * from unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[])
  on conflict do nothing
  returning id, entity_channel_account_id, external_chat_id`,
);
