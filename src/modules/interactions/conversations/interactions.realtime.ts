/**
 * The server events of the interactions module on namespace /interactions (docs/api.md "Realtime"): each
 * payload's TypeBox schema is its single source (reusing the conversation and message response schemas),
 * declared in the platform's `ServerToClientEvents` and registered for the documentation test, and each
 * event has one typed emit function. An emit function takes any `RealtimeEmitter`: the publisher (emitted
 * at once) or a `ChangeEvents` collector (emitted once the transaction commits).
 */
import { Type, type Static } from 'typebox';
import { defineServerEvent, type RealtimeEmitter } from '../../../platform/realtime/events.js';
import { ConversationResponse, MessageResponse } from './conversation.schemas.js';
import { toConversationResponse, toMessageResponse, type ConversationRow, type MessageRow } from './conversation.mapper.js';
import {
  ASSIGNMENT_VIAS,
  CONVERSATION_STATUSES,
  MESSAGE_STATUSES,
  SLA_METRICS,
  type AssignmentVia,
  type ConversationStatus,
  type SlaMetric,
} from '../model/index.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Iso = Type.String({ format: 'date-time' });

const ConversationPayload = Type.Object({ conversation: ConversationResponse });
const MessageCreatedPayload = Type.Object({ conversation_id: Type.Integer(), external_chat_id: Type.String(), message: MessageResponse });
const MessageStatusPayload = Type.Object({
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
const ConversationAssignedPayload = Type.Object({
  conversation: ConversationResponse,
  employee_id: Type.Integer(),
  via: Type.Enum(ASSIGNMENT_VIAS),
  queue_id: Nullable(Type.Integer()),
});
const ConversationStatusChangedPayload = Type.Object({
  conversation: ConversationResponse,
  status: Type.Enum(CONVERSATION_STATUSES),
  previous_status: Type.Enum(CONVERSATION_STATUSES),
  /** Null when the system changed it: an inbound message, a snooze waking up. */
  changed_by_employee_id: Nullable(Type.Integer()),
  snoozed_until: Nullable(Iso),
});
const ConversationSlaPayload = Type.Object({
  conversation: ConversationResponse,
  metric: Type.Enum(SLA_METRICS),
  /** The instant the target is (or was) due. */
  due_at: Iso,
  policy_id: Type.Integer(),
});

declare module '../../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'interaction.message.created': (payload: Static<typeof MessageCreatedPayload>) => void;
    'interaction.message.status': (payload: Static<typeof MessageStatusPayload>) => void;
    'interaction.conversation.created': (payload: Static<typeof ConversationPayload>) => void;
    'interaction.conversation.updated': (payload: Static<typeof ConversationPayload>) => void;
    'interaction.conversation.assigned': (payload: Static<typeof ConversationAssignedPayload>) => void;
    'interaction.conversation.read': (payload: Static<typeof ConversationPayload>) => void;
    'interaction.conversation.status_changed': (payload: Static<typeof ConversationStatusChangedPayload>) => void;
    'interaction.conversation.sla_at_risk': (payload: Static<typeof ConversationSlaPayload>) => void;
    'interaction.conversation.sla_breached': (payload: Static<typeof ConversationSlaPayload>) => void;
  }
}

defineServerEvent('interaction.message.created', MessageCreatedPayload);
defineServerEvent('interaction.message.status', MessageStatusPayload);
defineServerEvent('interaction.conversation.created', ConversationPayload);
defineServerEvent('interaction.conversation.updated', ConversationPayload);
defineServerEvent('interaction.conversation.assigned', ConversationAssignedPayload);
defineServerEvent('interaction.conversation.read', ConversationPayload);
defineServerEvent('interaction.conversation.status_changed', ConversationStatusChangedPayload);
defineServerEvent('interaction.conversation.sla_at_risk', ConversationSlaPayload);
defineServerEvent('interaction.conversation.sla_breached', ConversationSlaPayload);

/**
 * A conversation's event reaches its entity (members who see everything), its chat and conversation rooms,
 * and the agents who see it without seeing everything (conversation-visibility.ts): its assignee, or while
 * unassigned its routing queue's members, and its lead's sellers. A few room names, whatever the team size.
 */
export const roomsOf = (c: ConversationRow) => ({
  externalChatId: c.externalChatId,
  conversationId: c.id,
  employeeIds: c.assignmentStatus === 'assigned' && c.assignedEmployeeId !== null ? [c.assignedEmployeeId] : [],
  queueId: c.assignmentStatus === 'assigned' ? null : c.queueId,
  leadId: c.leadId,
});

/** `interaction.conversation.created`: a chat's first event opened the conversation. */
export function emitConversationCreated(to: RealtimeEmitter, c: ConversationRow): void {
  to.toEntity(c.entityId, 'interaction.conversation.created', { conversation: toConversationResponse(c) }, roomsOf(c));
}

/** Who saw a conversation before a change took it from them (a former assignee, the queue it waited in). */
export interface FormerAudience {
  employeeIds?: number[];
  queueId?: number | null;
}

/**
 * `interaction.conversation.updated`: last message, unread count, assignment, notes or follow-up changed.
 * With `formerly`, also to those who just lost it, so their inbox drops it (the last event they hear of it).
 */
export function emitConversationUpdated(to: RealtimeEmitter, c: ConversationRow, formerly?: FormerAudience): void {
  const rooms = roomsOf(c);
  if (formerly) {
    rooms.employeeIds = [...rooms.employeeIds, ...(formerly.employeeIds ?? [])];
    if (rooms.queueId === null && formerly.queueId !== undefined) rooms.queueId = formerly.queueId;
  }
  to.toEntity(c.entityId, 'interaction.conversation.updated', { conversation: toConversationResponse(c) }, rooms);
}

/** `interaction.conversation.read`: someone marked the conversation read. */
export function emitConversationRead(to: RealtimeEmitter, c: ConversationRow): void {
  to.toEntity(c.entityId, 'interaction.conversation.read', { conversation: toConversationResponse(c) }, roomsOf(c));
}

/** `interaction.conversation.assigned`: the conversation went to `employeeId` (seller, queue or manual). */
export function emitConversationAssigned(to: RealtimeEmitter, c: ConversationRow, a: { employeeId: number; via: AssignmentVia; queueId: number | null }): void {
  to.toEntity(
    c.entityId,
    'interaction.conversation.assigned',
    { conversation: toConversationResponse(c), employee_id: a.employeeId, via: a.via, queue_id: a.queueId },
    roomsOf(c),
  );
}

/** `interaction.conversation.status_changed`: the lifecycle status of `c` moved from `previous` (by an employee, or the system when null). */
export function emitConversationStatusChanged(to: RealtimeEmitter, c: ConversationRow, previous: ConversationStatus, by: number | null): void {
  to.toEntity(
    c.entityId,
    'interaction.conversation.status_changed',
    {
      conversation: toConversationResponse(c),
      status: c.status,
      previous_status: previous,
      changed_by_employee_id: by,
      snoozed_until: c.snoozedUntil?.toISOString() ?? null,
    },
    roomsOf(c),
  );
}

/** `interaction.conversation.sla_at_risk` / `sla_breached`: a target of `c`'s SLA policy is at risk, or was missed. */
export function emitConversationSla(
  to: RealtimeEmitter,
  c: ConversationRow,
  kind: 'at_risk' | 'breach',
  a: { metric: SlaMetric; dueAt: string; policyId: number },
): void {
  const payload = { conversation: toConversationResponse(c), metric: a.metric, due_at: a.dueAt, policy_id: a.policyId };
  if (kind === 'breach') to.toEntity(c.entityId, 'interaction.conversation.sla_breached', payload, roomsOf(c));
  else to.toEntity(c.entityId, 'interaction.conversation.sla_at_risk', payload, roomsOf(c));
}

/** `interaction.message.created`: a message was recorded on conversation `c`. */
export function emitMessageCreated(to: RealtimeEmitter, c: ConversationRow, m: MessageRow): void {
  to.toEntity(
    c.entityId,
    'interaction.message.created',
    { conversation_id: c.id, external_chat_id: c.externalChatId, message: toMessageResponse(m) },
    roomsOf(c),
  );
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
