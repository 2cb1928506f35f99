/**
 * Steps 6 and 7 of SPEC "Inbound webhook processing order": applies one canonical event to the local
 * projection inside the caller's transaction and returns the effects (realtime events, domain events)
 * to publish after commit. Idempotent by construction: messages are unique per platform id, statuses only
 * move forward, and the inbox row is marked processed in the same transaction.
 */
import type { Db } from '../../db/client.js';
import { findOrCreateContact, findOrCreateContacts, sellersOf, creationEvents, type ContactIdentity } from '../records/contact-identity.service.js';
import type { ContactChannelType } from '../records/channel-identifier.js';
import type { CanonicalEvent, CanonicalMessageEvent, CanonicalStatusEvent, Platform } from './canonical.js';
import * as repo from './projection.repository.js';
import { projectOnKnownChats, type ProjectedOnKnownChat } from './message-batch.repository.js';
import { toConversationResponse, toMessageResponse, type ConversationRow, type MessageRow } from './conversation.mapper.js';
import { routeConversation, type Assignment } from './routing.engine.js';
import { RealtimeEvent } from './realtime-events.js';
import type { DomainEventMap } from '../../platform/events/bus.js';
import type { MessageInboundTriggerContext } from './interactions.events.js';

export interface RealtimeEffect {
  entityId: number;
  event: string;
  payload: unknown;
  externalChatId?: string;
  conversationId?: number;
}

export type DomainEffect = { [K in keyof DomainEventMap]: { name: K; payload: DomainEventMap[K] } }[keyof DomainEventMap];

export interface Effects {
  realtime: RealtimeEffect[];
  domain: DomainEffect[];
}

export type ApplyResult = { outcome: 'processed'; entityId: number | null; effects: Effects } | { outcome: 'unroutable' };

const CHANNEL_TYPE: Record<Platform, ContactChannelType> = { whatsapp: 'whatsapp', messenger: 'messenger', instagram: 'instagram' };

/** Applies `event`; `unroutable` when no entity owns the receiving account. */
export async function applyEvent(db: Db, event: CanonicalEvent): Promise<ApplyResult> {
  const account = await resolveAccount(db, event);
  if (!account) return { outcome: 'unroutable' };
  // Messages have one projection, the batch statement, whether they come alone or in a batch.
  if (event.kind === 'message') {
    const [result] = await applyMessageBatch(db, [event]);
    if (!result) throw new Error(`Channel account ${event.account_id} is no longer active`);
    return result;
  }
  const effects: Effects = { realtime: [], domain: [] };
  if (event.kind === 'status') await applyStatusEvent(db, account, event, effects);
  return { outcome: 'processed', entityId: account.entityId, effects };
}

async function resolveAccount(db: Db, event: CanonicalEvent): Promise<repo.ChannelAccountRef | undefined> {
  const found = await repo.findChannelAccount(db, event.platform, event.account_id);
  if (found) return found;
  const entityId = await repo.findEntityByCommunicationsConfig(db, event.external_app_id ?? null, event.communications_entity_id ?? null);
  if (entityId === undefined) return undefined;
  return repo.registerChannelAccount(db, entityId, event.platform, event.account_id);
}

interface ConversationContext {
  conversation: ConversationRow;
  created: boolean;
}

/** The sender's channel as a contact identifier: a WhatsApp sender by phone, others by platform user id. */
function senderChannel(event: { platform: Platform; external_chat_id: string; sender: { phone: string | null } | null }): { type: ContactChannelType; identifier: string } {
  const type = CHANNEL_TYPE[event.platform];
  return { type, identifier: type === 'whatsapp' ? (event.sender?.phone ?? `+${event.external_chat_id}`) : event.external_chat_id };
}

/** The new conversation of `event`'s chat on `account` with `contact`. */
function newConversation(account: repo.ChannelAccountRef, event: { external_chat_id: string; sender: { name: string | null } | null }, contact: ContactIdentity): repo.NewConversation {
  return {
    entityId: account.entityId,
    entityChannelAccountId: account.id,
    channelTypeCode: account.channelTypeCode,
    externalChatId: event.external_chat_id,
    contactId: contact.contactId,
    leadId: contact.leadId,
    groupId: contact.groupId,
    senderName: event.sender?.name ?? null,
  };
}

function pushContactCreated(effects: Effects, entityId: number, contact: ContactIdentity): void {
  const ev = creationEvents(entityId, contact, 'conversation');
  effects.domain.push({ name: 'lead.created', payload: ev.lead }, { name: 'contact.created', payload: ev.contact });
}

async function ensureConversation(
  db: Db,
  account: repo.ChannelAccountRef,
  event: { platform: Platform; external_chat_id: string; sender: { name: string | null; phone: string | null } | null },
  effects: Effects,
): Promise<ConversationContext> {
  const existing = await repo.lockConversation(db, account.id, event.external_chat_id);
  if (existing) return { conversation: existing, created: false };
  // A conversation created since the lookup makes the insert below conflict; it is then locked.
  const contact = await findOrCreateContact(db, account.entityId, { ...senderChannel(event), name: event.sender?.name ?? null });
  if (contact.created) pushContactCreated(effects, account.entityId, contact);
  const inserted = await repo.insertConversation(db, newConversation(account, event, contact));
  if (inserted) return { conversation: inserted, created: true };
  const again = await repo.lockConversation(db, account.id, event.external_chat_id);
  if (!again) throw new Error('Conversation vanished after a conflict');
  return { conversation: again, created: false };
}

/**
 * Creates the conversations of new chats in a batch, with their contacts (and what the hierarchy needs)
 * when the senders are unknown, in a constant number of statements. Sets each item's `created`.
 */
async function createConversations(db: Db, items: { account: repo.ChannelAccountRef; event: CanonicalMessageEvent; effects: Effects; created: boolean }[]): Promise<void> {
  if (items.length === 0) return;
  const contacts = await findOrCreateContacts(
    db,
    items.map((m) => ({ entityId: m.account.entityId, ...senderChannel(m.event), name: m.event.sender.name })),
  );
  items.forEach((m, i) => {
    if (contacts[i]!.created) pushContactCreated(m.effects, m.account.entityId, contacts[i]!);
  });
  const created = await repo.insertConversations(db, items.map((m, i) => newConversation(m.account, m.event, contacts[i]!)));
  for (const m of items) m.created = created.has(`${m.account.id}:${m.event.external_chat_id}`);
}

/**
 * Applies the message events among `events` in a few statements for the whole batch
 * (message-batch.repository.ts): messages on known chats at once; for new chats, their contacts and
 * conversations at once, then their messages at once. Routing and effects follow per event as in
 * `applyEvent`. Returns a result per index of `events`; an index left undefined (a status, an account
 * error, a message for an account no entity has yet) still needs `applyEvent`.
 */
export async function applyMessageBatch(db: Db, events: CanonicalEvent[]): Promise<(ApplyResult | undefined)[]> {
  const results: (ApplyResult | undefined)[] = events.map(() => undefined);
  const messages: { index: number; event: CanonicalMessageEvent; effects: Effects; created: boolean }[] = [];
  events.forEach((event, index) => {
    if (event.kind === 'message') messages.push({ index, event, effects: { realtime: [], domain: [] }, created: false });
  });
  const settle = async (p: ProjectedOnKnownChat, m: (typeof messages)[number]) => {
    if (p.message !== null && p.conversation !== null) {
      const projected = { account: p.account, event: m.event, message: p.message, conversation: p.conversation, created: m.created, isFirst: p.previousLastInboundAt === null };
      await followMessage(db, { ...projected, entityHasQueues: p.entityHasQueues }, m.effects);
    }
    results[m.index] = { outcome: 'processed', entityId: p.account.entityId, effects: m.effects };
  };
  const fresh: ((typeof messages)[number] & { account: repo.ChannelAccountRef })[] = [];
  for (const p of await projectOnKnownChats(db, messages.map((m) => m.event))) {
    const m = messages[p.ord]!;
    if (p.knownChat) await settle(p, m);
    else fresh.push({ ...m, account: p.account });
  }
  await createConversations(db, fresh);
  for (const p of await projectOnKnownChats(db, fresh.map((m) => m.event))) await settle(p, fresh[p.ord]!);
  return results;
}

interface ProjectedMessage {
  account: repo.ChannelAccountRef;
  event: CanonicalMessageEvent;
  message: MessageRow;
  /** The conversation after the message moved it. */
  conversation: ConversationRow;
  /** Whether the conversation was created for this message. */
  created: boolean;
  /** Whether this is the contact's first inbound message in the conversation. */
  isFirst: boolean;
  entityHasQueues: boolean | undefined;
}

/** After a message is projected: realtime events, routing of an unassigned conversation, the trigger context. */
async function followMessage(db: Db, p: ProjectedMessage, effects: Effects): Promise<void> {
  const { account, event, message: m, created, isFirst } = p;
  let updated = p.conversation;
  const room = { entityId: account.entityId, externalChatId: updated.externalChatId, conversationId: updated.id };
  if (created) effects.realtime.push({ ...room, event: RealtimeEvent.conversationCreated, payload: { conversation: toConversationResponse(updated) } });
  effects.realtime.push({ ...room, event: RealtimeEvent.messageCreated, payload: { conversation_id: updated.id, external_chat_id: updated.externalChatId, message: toMessageResponse(m) } });
  if (event.direction !== 'inbound') {
    effects.realtime.push({ ...room, event: RealtimeEvent.conversationUpdated, payload: { conversation: toConversationResponse(updated) } });
    return;
  }
  let assignment: Assignment | null = null;
  if (updated.assignmentStatus === 'unassigned') {
    const routed = await routeConversation(
      db,
      updated,
      { channelTypeCode: account.channelTypeCode, entityChannelAccountId: account.id, messageText: event.message.text ?? '', isFirstMessage: isFirst },
      () => sellersOf(db, account.entityId, { leadId: updated.leadId, groupId: updated.groupId }),
      p.entityHasQueues,
    );
    updated = routed.conversation;
    assignment = routed.assignment;
  }
  effects.realtime.push({ ...room, event: RealtimeEvent.conversationUpdated, payload: { conversation: toConversationResponse(updated) } });
  if (assignment) pushAssignmentEffects(effects, assignment, null);
  effects.domain.push({ name: 'message.inbound', payload: triggerContext(account, updated, m, event, isFirst) });
}

/** Realtime `interaction.conversation.assigned` and domain `conversation.assigned` for one assignment. */
export function pushAssignmentEffects(effects: Effects, a: { conversation: ConversationRow; employeeId: number; via: 'seller' | 'queue' | 'manual'; queueId: number | null }, by: number | null): void {
  const c = a.conversation;
  effects.realtime.push({
    entityId: c.entityId,
    externalChatId: c.externalChatId,
    conversationId: c.id,
    event: RealtimeEvent.conversationAssigned,
    payload: { conversation: toConversationResponse(c), employee_id: a.employeeId, via: a.via, queue_id: a.queueId },
  });
  effects.domain.push({
    name: 'conversation.assigned',
    payload: { entityId: c.entityId, conversationId: c.id, contactId: c.contactId, leadId: c.leadId, groupId: c.groupId, employeeId: a.employeeId, via: a.via, queueId: a.queueId, changedByEmployeeId: by, occurredAt: new Date().toISOString() },
  });
}

/** The SPEC `message.inbound` trigger context, field for field. */
export function triggerContext(account: repo.ChannelAccountRef, conv: ConversationRow, m: MessageRow, event: CanonicalMessageEvent, isFirst: boolean): MessageInboundTriggerContext {
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

async function applyStatusEvent(db: Db, account: repo.ChannelAccountRef, event: CanonicalStatusEvent, effects: Effects): Promise<void> {
  const at = new Date(event.occurred_at);
  let changed: MessageRow[] = [];
  if (event.message_id !== null) {
    let m = await repo.findMessageForUpdate(db, account.entityId, event.message_id);
    if (!m) {
      if (event.external_chat_id === null) return;
      // A status for a message sent outside this service (phone app, another tool): keep a stub so its
      // delivery history is not lost; a later projection of the same id fills nothing twice.
      const { conversation: conv } = await ensureConversation(db, account, { platform: event.platform, external_chat_id: event.external_chat_id, sender: null }, effects);
      m = await repo.insertMessage(db, {
        entityId: account.entityId,
        conversationId: conv.id,
        direction: 'outbound',
        type: 'unsupported',
        text: null,
        content: { stub: true },
        externalMessageId: event.message_id,
        occurredAt: at,
        occurredAtMs: at.getTime(),
      });
      m ??= await repo.findMessageForUpdate(db, account.entityId, event.message_id);
      if (!m) return;
    }
    const row = await repo.applyStatus(db, m.id, event.status, at, event.errors);
    if (row) changed = [row];
  } else if (event.up_to !== null && event.external_chat_id !== null && (event.status === 'read' || event.status === 'delivered')) {
    const conv = await repo.findConversation(db, account.id, event.external_chat_id);
    if (!conv) return;
    changed = await repo.applyWatermark(db, conv.id, event.status, new Date(event.up_to), at);
  }
  for (const row of changed) {
    effects.realtime.push({
      entityId: account.entityId,
      conversationId: row.conversationId,
      ...(event.external_chat_id !== null ? { externalChatId: event.external_chat_id } : {}),
      event: RealtimeEvent.messageStatus,
      payload: {
        conversation_id: row.conversationId,
        message_id: row.id,
        external_message_id: row.externalMessageId,
        status: row.status,
        sent_at: row.sentAt?.toISOString() ?? null,
        delivered_at: row.deliveredAt?.toISOString() ?? null,
        read_at: row.readAt?.toISOString() ?? null,
        failed_at: row.failedAt?.toISOString() ?? null,
        errors: row.errors ?? null,
      },
    });
  }
}
