/**
 * Opening conversations for new chats, the one way inbound intake creates them (a chat's first message,
 * or a delivery status of a message sent outside this service): the senders become contacts through
 * records' batch find-or-create (a lead and a group come with a new contact; records publishes their
 * creation events through the batch's transaction), then the conversations are inserted in one statement. A chat whose conversation
 * another writer opened meanwhile is skipped (not reported created).
 */
import type { PublishingUnitOfWork } from '../../../platform/transactions/transaction.js';
import { findOrCreateContacts, type ContactChannelType } from '../../records/index.js';
import type { Platform } from '../model/index.js';
import type { ChannelAccountRef } from '../channel-accounts/index.js';
import { accountChatKey, insertConversations } from './inbound.repository.js';
import { channelOf } from '../channels/index.js';

/** A chat to open: who writes (null for a status of an unknown message), on which account. */
export interface NewChat {
  account: ChannelAccountRef;
  platform: Platform;
  externalChatId: string;
  sender: { name: string | null; phone: string | null } | null;
}

/** The sender's channel as a contact identifier, as its channel finds senders. */
function senderChannel(chat: NewChat): { type: ContactChannelType; identifier: string } {
  return channelOf(chat.platform).senderIdentity(chat.externalChatId, chat.sender);
}

/**
 * Opens the conversations of `chats` (distinct chats) in a constant number of statements. Returns, per
 * index of `chats`, the id of the conversation it created, or null when the chat had one already.
 */
export async function openConversations(unit: PublishingUnitOfWork, chats: NewChat[]): Promise<(number | null)[]> {
  if (chats.length === 0) return [];
  const contacts = await findOrCreateContacts(
    unit,
    chats.map((c) => ({ entityId: c.account.entityId, ...senderChannel(c), name: c.sender?.name ?? null })),
    'conversation',
  );
  const created = await insertConversations(
    unit.tx,
    chats.map((c, i) => ({
      entityId: c.account.entityId,
      entityChannelAccountId: c.account.id,
      channelTypeCode: c.account.channelTypeCode,
      externalChatId: c.externalChatId,
      contactId: contacts[i]!.contactId,
      leadId: contacts[i]!.leadId,
      groupId: contacts[i]!.groupId,
      senderName: c.sender?.name ?? null,
    })),
  );
  return chats.map((c) => created.get(accountChatKey(c.account.id, c.externalChatId)) ?? null);
}
