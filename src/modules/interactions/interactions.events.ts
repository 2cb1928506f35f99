/**
 * Domain events of the interactions module: the `message.inbound` workflow trigger context (SPEC
 * "Trigger context shapes", exactly those fields and types) and conversation assignment events shaped
 * like `lead.assigned`. Published on the event bus after the transaction that caused them commits.
 */
import type { AfterCommit } from './after-commit.js';
import type { ConversationRow } from './conversation.mapper.js';
import { emitConversationAssigned } from './interactions.realtime.js';
import type { AssignmentVia, ChannelTypeCode } from './interactions.enums.js';

/** SPEC "Trigger context shapes" → message.inbound; the workflows module stores it under `trigger`. */
export interface MessageInboundTriggerContext {
  type: 'message.inbound';
  entity_id: number;
  contact_id: number;
  lead_id: number;
  group_id: number;
  channel_type_code: ChannelTypeCode;
  /** `assigned` or `unassigned` (a conversation waiting in a queue is unassigned). */
  assignment_status: 'assigned' | 'unassigned';
  assigned_employee_ids: number[];
  sender_identifier: string;
  sender_name: string;
  message_text: string;
  message_id: string;
  external_chat_id: string;
  entity_channel_account_id: number;
  is_first_message: boolean;
  /** ISO 8601 platform time of the message. */
  occurred_at: string;
}

/** The workflow execution that caused an event (loop protection: `depth` grows with each hop). */
export interface EventOrigin {
  workflowId: number;
  executionId: number;
  depth: number;
}

/** `message.outbound` (SPEC "Workflow trigger events", post-MVP): a message was queued for sending, by an employee or a workflow. */
export interface MessageOutboundEvent {
  type: 'message.outbound';
  entity_id: number;
  contact_id: number;
  lead_id: number;
  group_id: number;
  conversation_id: number;
  channel_type_code: ChannelTypeCode;
  /** Our message id. */
  message_id: number;
  message_type: string;
  message_text: string;
  /** Null when a workflow sent it. */
  sent_by_employee_id: number | null;
  external_chat_id: string;
  entity_channel_account_id: number;
  occurred_at: string;
  origin?: EventOrigin;
}

export interface ConversationAssignmentEvent {
  entityId: number;
  conversationId: number;
  contactId: number;
  leadId: number;
  groupId: number;
  employeeId: number;
  /** `seller` (the lead's or group's seller), `queue` (round robin), `manual` (API). */
  via: AssignmentVia;
  queueId: number | null;
  changedByEmployeeId: number | null;
  occurredAt: string;
}

declare module '../../platform/events/bus.js' {
  interface DomainEventMap {
    'message.inbound': MessageInboundTriggerContext;
    'message.outbound': MessageOutboundEvent;
    'conversation.assigned': ConversationAssignmentEvent;
    'conversation.unassigned': ConversationAssignmentEvent;
  }
}

/** A conversation handed to an employee, as routing or the API reports it. */
export interface ConversationAssignment {
  conversation: ConversationRow;
  employeeId: number;
  via: AssignmentVia;
  queueId: number | null;
}

/** After commit: `interaction.conversation.assigned` to the sockets and `conversation.assigned` on the bus; `by` is the acting employee (null: routing). */
export function announceAssignment(out: AfterCommit, a: ConversationAssignment, by: number | null): void {
  const c = a.conversation;
  emitConversationAssigned(out, c, a);
  out.domainEvent('conversation.assigned', {
    entityId: c.entityId,
    conversationId: c.id,
    contactId: c.contactId,
    leadId: c.leadId,
    groupId: c.groupId,
    employeeId: a.employeeId,
    via: a.via,
    queueId: a.queueId,
    changedByEmployeeId: by,
    occurredAt: new Date().toISOString(),
  });
}

/** After commit: `conversation.unassigned` on the bus for the employee `previous` was assigned to, removed by `by`. */
export function announceUnassignment(out: AfterCommit, previous: ConversationRow & { assignedEmployeeId: number }, by: number | null): void {
  out.domainEvent('conversation.unassigned', {
    entityId: previous.entityId,
    conversationId: previous.id,
    contactId: previous.contactId,
    leadId: previous.leadId,
    groupId: previous.groupId,
    employeeId: previous.assignedEmployeeId,
    via: 'manual',
    queueId: previous.queueId,
    changedByEmployeeId: by,
    occurredAt: new Date().toISOString(),
  });
}
