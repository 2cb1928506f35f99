/**
 * The statement that records inbound messages (SPEC "Inbound webhook processing order", step 6): one
 * statement for a whole batch of them, one round trip. Every message comes with its receiving account
 * already resolved and its conversation already open; the statement locks the conversation, inserts the
 * message (ignoring a platform id already recorded) and moves the conversation: last message (never back
 * to an older platform time, preview per `previewOf`), unread count and last inbound time of inbound
 * messages, sender name. The worker batches distinct chats only, so no two messages of one batch touch
 * the same conversation.
 */
import { preparedIn, type Db } from '../../db/client.js';
import { rowFromJson } from '../../db/json-row.js';
import type { CanonicalMessageEvent } from './canonical.js';
import type { ChannelAccountRef } from './entity-channel-account.repository.js';
import { conversation } from './conversation.table.js';
import { message } from './message.table.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import { previewOf } from './inbound.repository.js';

const NEWER = `(c.last_message_at is null or ins.occurred_at >= c.last_message_at)`;

const RECORD_MESSAGES = `
with x as (
  select * from unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[],
                       $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::bigint[], $14::text[], $15::text[])
    as x(ord, account_id, entity_id, external_chat_id, direction, type, text, content,
         external_message_id, reply_to_external_id, media_id, occurred_at, occurred_at_ms, preview, sender_name)
), target as (
  select x.*, c.id as conversation_id, c.last_inbound_at as previous_last_inbound_at
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
         updated_at = now()
    from ins join target t on t.conversation_id = ins.conversation_id
   where c.id = ins.conversation_id
  returning c.*
)
select t.ord, t.previous_last_inbound_at,
       exists (select 1 from routing_queue q where q.entity_id = t.entity_id) as entity_has_queues,
       row_to_json(ins) as message, row_to_json(upd) as conversation
  from target t
  left join ins on ins.conversation_id = t.conversation_id
  left join upd on upd.id = t.conversation_id`;

/** A message to record: its event and its resolved receiving account. */
export interface MessageToRecord {
  event: CanonicalMessageEvent;
  account: ChannelAccountRef;
}

export interface RecordedMessage {
  /** Index of the message in the caller's list. */
  ord: number;
  /** Whether the entity has routing queues (routing's first question, answered in the same trip). */
  entityHasQueues: boolean;
  /** The conversation's last inbound time before this message (null: this is the contact's first). */
  previousLastInboundAt: Date | null;
  /** The inserted message and the updated conversation; both null when the platform id was already recorded. */
  message: MessageRow | null;
  conversation: ConversationRow | null;
}

interface ResultRow {
  ord: number;
  previous_last_inbound_at: Date | null;
  entity_has_queues: boolean;
  message: Record<string, unknown> | null;
  conversation: Record<string, unknown> | null;
}

/**
 * Records `messages` (of distinct chats, whose conversations exist); see the module comment. Returns one
 * result per message whose conversation was found, by index.
 */
export async function recordMessages(db: Db, messages: MessageToRecord[]): Promise<RecordedMessage[]> {
  if (messages.length === 0) return [];
  const column = <T>(f: (e: CanonicalMessageEvent, index: number) => T) => messages.map((m, i) => f(m.event, i));
  const rows = await preparedIn<ResultRow>(db, 'interactions_record_messages', RECORD_MESSAGES, [
    column((_, i) => i),
    messages.map((m) => m.account.id),
    messages.map((m) => m.account.entityId),
    column((e) => e.external_chat_id),
    column((e) => e.direction),
    column((e) => e.message.type),
    column((e) => e.message.text),
    column((e) => JSON.stringify(e.message.content)),
    column((e) => e.message_id),
    column((e) => e.message.reply_to),
    column((e) => e.message.media_id),
    column((e) => e.occurred_at),
    column((e) => new Date(e.occurred_at).getTime()),
    column((e) => previewOf(e.message)),
    column((e) => (e.direction === 'inbound' ? e.sender.name : null)),
  ]);
  return rows.map((r) => ({
    ord: Number(r.ord),
    entityHasQueues: r.entity_has_queues,
    previousLastInboundAt: r.previous_last_inbound_at === null ? null : new Date(r.previous_last_inbound_at),
    message: r.message === null ? null : rowFromJson(message, r.message),
    conversation: r.conversation === null ? null : rowFromJson(conversation, r.conversation),
  }));
}
