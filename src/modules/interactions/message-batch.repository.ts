/**
 * The projection of messages (SPEC "Inbound webhook processing order", step 6), one statement for a whole
 * batch of them, one round trip. For each event it resolves the active receiving account, locks the
 * conversation, inserts the message (ignoring a platform id already projected) and moves the
 * conversation: last message (never back to an older platform time, preview per `previewOf`), unread
 * count and last inbound time of inbound messages, sender name. Events of a chat with no conversation yet
 * come back with their account only; the caller creates their conversations and runs the statement again
 * for them. The worker batches distinct chats only, so no two events of one batch touch the same
 * conversation.
 */
import { preparedIn, type Db } from '../../db/client.js';
import { rowFromJson } from '../../db/json-row.js';
import type { CanonicalMessageEvent } from './canonical.js';
import { conversation } from './conversation.table.js';
import { message } from './message.table.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import { PLATFORM_CODES, previewOf, type ChannelAccountRef, type ChannelTypeCode } from './projection.repository.js';

// Constant text (platform and code names from our own table), so the statement is prepared once.
const PLATFORM_CODE_ROWS = Object.entries(PLATFORM_CODES)
  .flatMap(([platform, codes]) => codes.map((code) => `('${platform}', '${code}')`))
  .join(', ');

const NEWER = `(c.last_message_at is null or ins.occurred_at >= c.last_message_at)`;

const PROJECT_ON_KNOWN_CHATS = `
with x as (
  select * from unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[],
                       $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::bigint[], $14::text[], $15::text[])
    as x(ord, platform, account_external_id, external_chat_id, direction, type, text, content,
         external_message_id, reply_to_external_id, media_id, occurred_at, occurred_at_ms, preview, sender_name)
), account as (
  select distinct on (x.ord) x.ord, a.id, a.entity_id, a.channel_type_code
    from x
    join (values ${PLATFORM_CODE_ROWS}) as pc(platform, code) on pc.platform = x.platform
    join entity_channel_account a on a.external_account_id = x.account_external_id and a.channel_type_code = pc.code::channel_type_code and a.is_active
   order by x.ord, a.id
), target as (
  select x.*, account.id as account_id, account.entity_id, account.channel_type_code as account_channel_type_code,
         c.id as conversation_id, c.last_inbound_at as previous_last_inbound_at
    from x
    join account on account.ord = x.ord
    join conversation c on c.entity_channel_account_id = account.id and c.external_chat_id = x.external_chat_id
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
select a.ord, a.id as account_id, a.entity_id, a.channel_type_code as account_channel_type_code,
       t.conversation_id is not null as known_chat, t.previous_last_inbound_at,
       exists (select 1 from routing_queue q where q.entity_id = a.entity_id) as entity_has_queues,
       row_to_json(ins) as message, row_to_json(upd) as conversation
  from account a
  left join target t on t.ord = a.ord
  left join ins on ins.conversation_id = t.conversation_id
  left join upd on upd.id = t.conversation_id`;

export interface ProjectedOnKnownChat {
  /** Index of the event in the caller's list. */
  ord: number;
  account: ChannelAccountRef;
  /** False when the chat has no conversation yet: nothing was projected (message and conversation null). */
  knownChat: boolean;
  /** Whether the entity has routing queues (routing's first question, answered in the same trip). */
  entityHasQueues: boolean;
  /** The conversation's last inbound time before this message (null: this is the contact's first). */
  previousLastInboundAt: Date | null;
  /** The inserted message and the updated conversation; both null when the platform id was already projected. */
  message: MessageRow | null;
  conversation: ConversationRow | null;
}

interface ResultRow {
  ord: number;
  account_id: number;
  entity_id: number;
  account_channel_type_code: ChannelTypeCode;
  known_chat: boolean;
  previous_last_inbound_at: Date | null;
  entity_has_queues: boolean;
  message: Record<string, unknown> | null;
  conversation: Record<string, unknown> | null;
}

/**
 * Projects `events` (messages of distinct chats) whose conversation exists; see the module comment. Every
 * event whose receiving account is known gets a result (`knownChat` false when its conversation is still
 * to be created); events of unknown accounts get none.
 */
export async function projectOnKnownChats(db: Db, events: CanonicalMessageEvent[]): Promise<ProjectedOnKnownChat[]> {
  if (events.length === 0) return [];
  const column = <T>(f: (e: CanonicalMessageEvent, index: number) => T) => events.map(f);
  const rows = await preparedIn<ResultRow>(db, 'interactions_project_on_known_chats', PROJECT_ON_KNOWN_CHATS, [
    column((_, i) => i),
    column((e) => e.platform),
    column((e) => e.account_id),
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
    account: { id: r.account_id, entityId: r.entity_id, channelTypeCode: r.account_channel_type_code },
    knownChat: r.known_chat,
    entityHasQueues: r.entity_has_queues,
    previousLastInboundAt: r.previous_last_inbound_at === null ? null : new Date(r.previous_last_inbound_at),
    message: r.message === null ? null : rowFromJson(message, r.message),
    conversation: r.conversation === null ? null : rowFromJson(conversation, r.conversation),
  }));
}
