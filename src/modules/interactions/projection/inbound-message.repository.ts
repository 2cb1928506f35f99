/**
 * The statement that records inbound messages (SPEC "Inbound webhook processing order", step 6): one
 * statement for a whole batch of them, one round trip. Every message comes with its receiving account
 * already resolved and its conversation already open; the statement locks the conversation, inserts the
 * message (ignoring a platform id already recorded) and moves the conversation: last message (never back
 * to an older platform time, preview per `previewOf`), unread count and last inbound time of inbound
 * messages, sender name, and the status (an inbound message reopens the conversation). The worker batches distinct chats only, so no two messages of one batch touch
 * the same conversation.
 */
import type { Db } from '../../../db/client.js';
import { runStatementIn } from '../../../db/statement.js';
import { RECORD_MESSAGES } from './inbound-message.sql.js';
import { rowFromJson } from '../../../db/json-row.js';
import type { CanonicalMessageEvent } from '../model/index.js';
import type { ChannelAccountRef } from '../channel-accounts/index.js';
import { conversation, type ConversationStatus } from '../model/index.js';
import { message } from '../model/index.js';
import { previewOf, type ConversationRow, type MessageRow } from '../conversations/index.js';

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
  /** Whether the entity has an active SLA policy (the SLA clocks' first question, answered in the same trip). */
  entityHasSlaPolicy: boolean;
  /**
   * For an inbound message on a conversation without one before: whether the contact already wrote in a
   * conversation of the entity opened before this one (on any account or number, before or in this batch),
   * so that `trigger.is_first_message` is the contact's first (SPEC field registry); false otherwise.
   */
  contactWroteElsewhere: boolean;
  /** The conversation's last inbound time before this message (null: this is the contact's first). */
  previousLastInboundAt: Date | null;
  /** The conversation's lifecycle status before this message (an inbound one reopens it). */
  previousStatus: ConversationStatus;
  /** The inserted message and the updated conversation; both null when the platform id was already recorded. */
  message: MessageRow | null;
  conversation: ConversationRow | null;
}

interface ResultRow {
  ord: number;
  previous_last_inbound_at: Date | null;
  previous_status: ConversationStatus;
  entity_has_queues: boolean;
  entity_has_sla_policy: boolean;
  contact_wrote_elsewhere: boolean | null;
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
  const rows = await runStatementIn<ResultRow>(db, RECORD_MESSAGES, [
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
    entityHasSlaPolicy: r.entity_has_sla_policy,
    contactWroteElsewhere: r.contact_wrote_elsewhere === true,
    previousLastInboundAt: r.previous_last_inbound_at === null ? null : new Date(r.previous_last_inbound_at),
    previousStatus: r.previous_status,
    message: r.message === null ? null : rowFromJson(message, r.message),
    conversation: r.conversation === null ? null : rowFromJson(conversation, r.conversation),
  }));
}
