/**
 * Delivery statuses of outbound messages (SPEC "Inbound webhook processing order", step 6), one event at
 * a time inside the worker's transaction. A status only moves forward; a status of a message sent outside
 * this service (phone app, another tool) keeps a stub message, in a conversation opened the one way
 * intake opens them, so its delivery history is not lost. Watermark statuses (Messenger) move every
 * outbound message of the chat up to their time.
 */
import type { CanonicalStatusEvent } from '../model/index.js';
import type { ChannelAccountRef } from '../channel-accounts/index.js';
import type { MessageRow } from '../conversations/index.js';
import type { PublishingUnitOfWork } from '../../../platform/transactions/transaction.js';
import * as repo from './inbound.repository.js';
import { openConversations } from './conversation-opening.service.js';
import { emitMessageStatus } from '../conversations/index.js';

/** Applies status `event` on `account`'s messages; collects `interaction.message.status` per changed message. */
export async function applyStatusEvent(unit: PublishingUnitOfWork, account: ChannelAccountRef, event: CanonicalStatusEvent): Promise<void> {
  const db = unit.tx;
  const at = new Date(event.occurred_at);
  let changed: MessageRow[] = [];
  if (event.message_id !== null) {
    const m = (await repo.findMessageForUpdate(db, account.entityId, event.message_id)) ?? (await recordStub(unit, account, event, event.message_id));
    if (!m) return;
    const row = await repo.applyStatus(db, m.id, event.status, at, event.errors);
    if (row) changed = [row];
  } else if (event.up_to !== null && event.external_chat_id !== null && (event.status === 'read' || event.status === 'delivered')) {
    const conv = await repo.findConversation(db, account.id, event.external_chat_id);
    if (!conv) return;
    changed = await repo.applyWatermark(db, conv.id, event.status, new Date(event.up_to), at);
  }
  for (const row of changed) emitMessageStatus(unit.events, row, event.external_chat_id);
}

/** The stub of a message this service never saw, in its chat's conversation (opened when needed); undefined without a chat. */
async function recordStub(
  unit: PublishingUnitOfWork,
  account: ChannelAccountRef,
  event: CanonicalStatusEvent,
  messageId: string,
): Promise<MessageRow | undefined> {
  if (event.external_chat_id === null) return undefined;
  const db = unit.tx;
  const conversationId = await conversationOf(unit, account, event.platform, event.external_chat_id);
  const at = new Date(event.occurred_at);
  const stub = await repo.insertMessage(db, {
    entityId: account.entityId,
    conversationId,
    direction: 'outbound',
    type: 'unsupported',
    text: null,
    content: { stub: true },
    externalMessageId: messageId,
    occurredAt: at,
    occurredAtMs: at.getTime(),
  });
  // A later message event with the same platform id fills nothing twice (its insert is ignored).
  return stub ?? (await repo.findMessageForUpdate(db, account.entityId, messageId));
}

/** The id of the chat's conversation, locked; opened (without a sender) when the chat has none. */
async function conversationOf(
  unit: PublishingUnitOfWork,
  account: ChannelAccountRef,
  platform: CanonicalStatusEvent['platform'],
  externalChatId: string,
): Promise<number> {
  const db = unit.tx;
  const existing = await repo.lockConversation(db, account.id, externalChatId);
  if (existing) return existing.id;
  const [opened] = await openConversations(unit, [{ account, platform, externalChatId, sender: null }]);
  if (opened !== null && opened !== undefined) return opened;
  const again = await repo.lockConversation(db, account.id, externalChatId);
  if (!again) throw new Error('Conversation vanished after a conflict');
  return again.id;
}
