/**
 * Domain events of the interactions module: the `message.inbound` workflow trigger context (SPEC
 * "Trigger context shapes", exactly those fields and types) and conversation assignment events shaped
 * like `lead.assigned`. Published on the event bus after the projection transaction commits.
 */

/** SPEC "Trigger context shapes" → message.inbound; the workflows module stores it under `trigger`. */
export interface MessageInboundTriggerContext {
  type: 'message.inbound';
  entity_id: number;
  contact_id: number;
  lead_id: number;
  group_id: number;
  channel_type_code: string;
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

export interface ConversationAssignmentEvent {
  entityId: number;
  conversationId: number;
  contactId: number;
  leadId: number;
  groupId: number;
  employeeId: number;
  /** `seller` (the lead's or group's seller), `queue` (round robin), `manual` (API). */
  via: 'seller' | 'queue' | 'manual';
  queueId: number | null;
  changedByEmployeeId: number | null;
  occurredAt: string;
}

declare module '../../platform/events/bus.js' {
  interface DomainEventMap {
    'message.inbound': MessageInboundTriggerContext;
    'conversation.assigned': ConversationAssignmentEvent;
    'conversation.unassigned': ConversationAssignmentEvent;
  }
}
