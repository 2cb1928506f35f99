/**
 * The server events of the interactions module on namespace /interactions (docs/api.md "Realtime"): each
 * payload's TypeBox schema is its single source (reusing the conversation and message response schemas),
 * declared in the platform's `ServerToClientEvents` and registered for the documentation test, and each
 * event has one typed emit function. An emit function takes any `RealtimeEmitter`: the gateway (emitted
 * at once) or an `AfterCommit` (emitted once the transaction commits).
 */
import { Type, type Static } from 'typebox';
import { defineServerEvent, type RealtimeEmitter } from '../../platform/realtime/events.js';
import { ConversationResponse, MessageResponse } from './conversation.schemas.js';
import { toConversationResponse, toMessageResponse, type ConversationRow, type MessageRow } from './conversation.mapper.js';
import { ASSIGNMENT_VIAS, MESSAGE_STATUSES, type AssignmentVia } from './interactions.enums.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Iso = Type.String({ format: 'date-time' });

export const ConversationPayload = Type.Object({ conversation: ConversationResponse });
export const MessageCreatedPayload = Type.Object({ conversation_id: Type.Integer(), external_chat_id: Type.String(), message: MessageResponse });
export const MessageStatusPayload = Type.Object({
  conversation_id: Type.Integer(),
  message_id: Type.Integer(),
  external_message_id: Type.String(),
  status: Nullable(Type.Enum(MESSAGE_STATUSES)),
  sent_at: Nullable(Iso),
  delivered_at: Nullable(Iso),
  read_at: Nullable(Iso),
  failed_at: Nullable(Iso),
  errors: Type.Unknown(),
});
export const ConversationAssignedPayload = Type.Object({
  conversation: ConversationResponse,
  employee_id: Type.Integer(),
  via: Type.Enum(ASSIGNMENT_VIAS),
  queue_id: Nullable(Type.Integer()),
});

declare module '../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'interaction.message.created': (payload: Static<typeof MessageCreatedPayload>) => void;
    'interaction.message.status': (payload: Static<typeof MessageStatusPayload>) => void;
    'interaction.conversation.created': (payload: Static<typeof ConversationPayload>) => void;
    'interaction.conversation.updated': (payload: Static<typeof ConversationPayload>) => void;
    'interaction.conversation.assigned': (payload: Static<typeof ConversationAssignedPayload>) => void;
    'interaction.conversation.read': (payload: Static<typeof ConversationPayload>) => void;
  }
}

defineServerEvent('interaction.message.created', MessageCreatedPayload);
defineServerEvent('interaction.message.status', MessageStatusPayload);
defineServerEvent('interaction.conversation.created', ConversationPayload);
defineServerEvent('interaction.conversation.updated', ConversationPayload);
defineServerEvent('interaction.conversation.assigned', ConversationAssignedPayload);
defineServerEvent('interaction.conversation.read', ConversationPayload);

/** A conversation's event reaches its entity, its chat room and its conversation room. */
const roomsOf = (c: ConversationRow) => ({ externalChatId: c.externalChatId, conversationId: c.id });

/** `interaction.conversation.created`: a chat's first event opened the conversation. */
export function emitConversationCreated(to: RealtimeEmitter, c: ConversationRow): void {
  to.toEntity(c.entityId, 'interaction.conversation.created', { conversation: toConversationResponse(c) }, roomsOf(c));
}

/** `interaction.conversation.updated`: last message, unread count, assignment, notes or follow-up changed. */
export function emitConversationUpdated(to: RealtimeEmitter, c: ConversationRow): void {
  to.toEntity(c.entityId, 'interaction.conversation.updated', { conversation: toConversationResponse(c) }, roomsOf(c));
}

/** `interaction.conversation.read`: someone marked the conversation read. */
export function emitConversationRead(to: RealtimeEmitter, c: ConversationRow): void {
  to.toEntity(c.entityId, 'interaction.conversation.read', { conversation: toConversationResponse(c) }, roomsOf(c));
}

/** `interaction.conversation.assigned`: the conversation went to `employeeId` (seller, queue or manual). */
export function emitConversationAssigned(to: RealtimeEmitter, c: ConversationRow, a: { employeeId: number; via: AssignmentVia; queueId: number | null }): void {
  to.toEntity(c.entityId, 'interaction.conversation.assigned', { conversation: toConversationResponse(c), employee_id: a.employeeId, via: a.via, queue_id: a.queueId }, roomsOf(c));
}

/** `interaction.message.created`: a message was recorded on conversation `c`. */
export function emitMessageCreated(to: RealtimeEmitter, c: ConversationRow, m: MessageRow): void {
  to.toEntity(c.entityId, 'interaction.message.created', { conversation_id: c.id, external_chat_id: c.externalChatId, message: toMessageResponse(m) }, roomsOf(c));
}

/** `interaction.message.status`: an outbound message's delivery status moved; the chat room only when the event named the chat. */
export function emitMessageStatus(to: RealtimeEmitter, m: MessageRow, externalChatId: string | null): void {
  to.toEntity(
    m.entityId,
    'interaction.message.status',
    {
      conversation_id: m.conversationId,
      message_id: m.id,
      external_message_id: m.externalMessageId,
      status: m.status,
      sent_at: m.sentAt?.toISOString() ?? null,
      delivered_at: m.deliveredAt?.toISOString() ?? null,
      read_at: m.readAt?.toISOString() ?? null,
      failed_at: m.failedAt?.toISOString() ?? null,
      errors: m.errors ?? null,
    },
    { conversationId: m.conversationId, ...(externalChatId !== null ? { externalChatId } : {}) },
  );
}
