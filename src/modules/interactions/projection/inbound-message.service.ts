/**
 * Inbound messages (SPEC "Inbound webhook processing order", steps 6 and 7), for a whole batch inside the
 * worker's transaction: the conversations of new chats are opened first (conversation-opening.service.ts),
 * then every message is recorded by one statement (inbound-message.repository.ts), then per message the
 * realtime events (a conversation an inbound message reopened among them), the routing of an unassigned conversation and the `message.inbound` trigger context
 * are collected for after the commit. Idempotent: a platform message id already recorded changes nothing.
 */
import { sellersOf } from '../../records/index.js';
import type { CanonicalMessageEvent } from '../model/index.js';
import type { ChannelAccountRef } from '../channel-accounts/index.js';
import { recordMessages, type RecordedMessage } from './inbound-message.repository.js';
import { openConversations } from './conversation-opening.service.js';
import type { ConversationRow, MessageRow } from '../conversations/index.js';
import { routeConversation, type Assignment } from '../routing/index.js';
import type { SlaClocks } from '../service-levels/index.js';
import type { ConversationChange } from '../activity/index.js';
import { announceAssignment, announceStatusChange, type MessageInboundTriggerContext } from '../events/index.js';
import { emitConversationCreated, emitConversationUpdated, emitMessageCreated } from '../conversations/index.js';

/** A message event of the batch with its resolved account and, when the chat has one, its conversation. */
export interface InboundMessage {
  event: CanonicalMessageEvent;
  account: ChannelAccountRef;
  conversationId: number | null;
}

/** Records `messages` (distinct chats) and collects what follows each; throws when a conversation vanished meanwhile. */
export async function receiveMessages(change: ConversationChange, messages: InboundMessage[], sla: SlaClocks): Promise<void> {
  if (messages.length === 0) return;
  const db = change.tx;
  const newChats = messages.filter((m) => m.conversationId === null);
  const opened = await openConversations(
    change,
    newChats.map((m) => ({ account: m.account, platform: m.event.platform, externalChatId: m.event.external_chat_id, sender: m.event.sender })),
  );
  const createdIds = new Set(opened.filter((id) => id !== null));
  const recorded = await recordMessages(db, messages);
  if (recorded.length !== messages.length) throw new Error('A conversation disappeared while its message was recorded');
  for (const r of recorded) {
    const m = messages[r.ord]!;
    if (r.message !== null && r.conversation !== null)
      await followMessage(change, m, r as RecordedMessage & { message: MessageRow; conversation: ConversationRow }, createdIds.has(r.conversation.id), sla);
  }
}

/** After a message is recorded: realtime events, routing of an unassigned conversation, the trigger context. */
async function followMessage(
  change: ConversationChange,
  m: InboundMessage,
  r: RecordedMessage & { message: MessageRow; conversation: ConversationRow },
  created: boolean,
  sla: SlaClocks,
): Promise<void> {
  const { account, event } = m;
  const { tx: db, events: out } = change;
  // First of the conversation, and the contact never wrote on another number of the entity either.
  const isFirst = r.previousLastInboundAt === null && !r.contactWroteElsewhere;
  let updated = r.conversation;
  if (created) emitConversationCreated(out, updated);
  emitMessageCreated(out, updated, r.message);
  if (event.direction !== 'inbound') {
    // Written on the business's own app or phone (an echo): a message out, never a first response.
    logMessage(change, updated, r.message, created);
    emitConversationUpdated(out, updated);
    return;
  }
  let assignment: Assignment | null = null;
  if (updated.assignmentStatus === 'unassigned') {
    const routed = await routeConversation(
      db,
      updated,
      { channelTypeCode: account.channelTypeCode, entityChannelAccountId: account.id, messageText: event.message.text ?? '', isFirstMessage: isFirst },
      () => sellersOf(db, account.entityId, { leadId: updated.leadId, groupId: updated.groupId }),
      r.entityHasQueues,
    );
    updated = routed.conversation;
    assignment = routed.assignment;
  }
  // After routing: the policy may be chosen by the conversation's routing queue.
  updated = await sla.customerWrote(change, updated, r.previousStatus, r.message.occurredAt, { entityHasPolicy: r.entityHasSlaPolicy });
  if (assignment) assignment = { ...assignment, conversation: updated };
  // Logged as routing left it, so the opening and the message count for the agent it was handed to.
  logMessage(change, updated, r.message, created);
  emitConversationUpdated(out, updated);
  announceStatusChange(change, updated, r.previousStatus, null, 'inbound_message');
  if (assignment) announceAssignment(change, assignment, null);
  out.domainEvent('message.inbound', triggerContext(account, updated, r.message, event, isFirst));
}

/** Logs the message (and the opening of a conversation it created, at the message's platform time). */
function logMessage(change: ConversationChange, c: ConversationRow, m: MessageRow, created: boolean): void {
  if (created) change.log.record({ kind: 'opened', conversation: c, at: m.occurredAt });
  change.log.record({ kind: m.direction === 'inbound' ? 'message_in' : 'message_out', conversation: c, at: m.occurredAt, data: { message_id: m.id } });
}

/** The SPEC `message.inbound` trigger context, field for field. */
function triggerContext(
  account: ChannelAccountRef,
  conv: ConversationRow,
  m: MessageRow,
  event: CanonicalMessageEvent,
  isFirst: boolean,
): MessageInboundTriggerContext {
  return {
    type: 'message.inbound',
    entity_id: account.entityId,
    contact_id: conv.contactId,
    lead_id: conv.leadId,
    group_id: conv.groupId,
    channel_type_code: account.channelTypeCode,
    assignment_status: conv.assignmentStatus === 'assigned' ? 'assigned' : 'unassigned',
    assigned_employee_ids: conv.assignedEmployeeId !== null && conv.assignmentStatus === 'assigned' ? [conv.assignedEmployeeId] : [],
    sender_identifier: event.sender.phone ?? event.sender.id,
    sender_name: event.sender.name ?? conv.senderName ?? '',
    message_text: m.text ?? '',
    message_id: m.externalMessageId,
    external_chat_id: conv.externalChatId,
    entity_channel_account_id: account.id,
    is_first_message: isFirst,
    occurred_at: m.occurredAt.toISOString(),
  };
}
