/**
 * Domain events of the interactions module: the `message.inbound` workflow trigger context (SPEC
 * "Trigger context shapes", exactly those fields and types) and conversation assignment events shaped
 * like `lead.assigned`. Published on the event bus after the transaction that caused them commits.
 */
import { statusEventKind, type ConversationChange, type StatusCause } from '../activity/index.js';
import {
  emitConversationAssigned,
  emitConversationSla,
  emitConversationStatusChanged,
  emitConversationUpdated,
  type ConversationRow,
} from '../conversations/index.js';
import type { AssignmentVia, ChannelTypeCode, ConversationStatus, SlaMetric, SlaTimeBasis } from '../model/index.js';
import type { SlaAlert } from '../service-levels/index.js';

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

interface ConversationAssignmentEvent {
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

/** What every conversation event on the bus says of its conversation (`conversationFacts`). */
interface ConversationEventFacts {
  entity_id: number;
  conversation_id: number;
  contact_id: number;
  lead_id: number;
  group_id: number;
  channel_type_code: ChannelTypeCode;
  entity_channel_account_id: number;
  external_chat_id: string;
  assignment_status: 'assigned' | 'unassigned';
  /** Null when unassigned. */
  assigned_employee_id: number | null;
}

/**
 * `conversation.resolved` and `conversation.reopened` (issue 30; our additions to SPEC's trigger events):
 * published in the trigger context's shape, like `message.outbound`. `reopened` is only a resolved
 * conversation opened again, by an employee (`via` `manual`) or by the customer writing (`inbound_message`).
 */
interface ConversationStatusEvent extends ConversationEventFacts {
  type: 'conversation.resolved' | 'conversation.reopened';
  /** The status the conversation left. */
  from_status: ConversationStatus;
  via: 'manual' | 'inbound_message';
  /** Null when the system changed it (an inbound message). */
  changed_by_employee_id: number | null;
  occurred_at: string;
}

/**
 * `conversation.sla_breached` (every missed target) and `conversation.no_reply` (a missed first or next
 * response: the customer is still waiting), once per conversation, target and due cycle (issue 31).
 */
interface ConversationSlaEvent extends ConversationEventFacts {
  type: 'conversation.sla_breached' | 'conversation.no_reply';
  queue_id: number | null;
  status: ConversationStatus;
  sla_metric: SlaMetric;
  sla_policy_id: number;
  /** The policy's target for the metric, in minutes of `sla_time_basis`. */
  sla_target_minutes: number;
  sla_time_basis: SlaTimeBasis;
  due_at: string;
  occurred_at: string;
}

/**
 * `conversation.labeled` (issue 49; our addition to SPEC's trigger events): labels were put on the conversation
 * itself, by an employee or a workflow. `label_ids` are the ones added by this change; `labels` every label the
 * conversation now carries, from any source.
 */
interface ConversationLabeledEvent extends ConversationEventFacts {
  type: 'conversation.labeled';
  label_ids: number[];
  labels: number[];
  /** Null when a workflow labelled it. */
  labeled_by_employee_id: number | null;
  occurred_at: string;
  origin?: EventOrigin;
}

declare module '../../../platform/events/domain-events.js' {
  interface DomainEventMap {
    'message.inbound': MessageInboundTriggerContext;
    'message.outbound': MessageOutboundEvent;
    'conversation.resolved': ConversationStatusEvent;
    'conversation.reopened': ConversationStatusEvent;
    'conversation.sla_breached': ConversationSlaEvent;
    'conversation.no_reply': ConversationSlaEvent;
    /** A running SLA clock used its policy's `at_risk_share` (issue 50: the notification centre; no workflow trigger). */
    'conversation.sla_at_risk': ConversationSlaAtRiskEvent;
    'conversation.assigned': ConversationAssignmentEvent;
    'conversation.unassigned': ConversationAssignmentEvent;
    'conversation.labeled': ConversationLabeledEvent;
  }
}

/** A conversation handed to an employee, as routing or the API reports it. */
export interface ConversationAssignment {
  conversation: ConversationRow;
  employeeId: number;
  via: AssignmentVia;
  queueId: number | null;
}

/**
 * An assignment made in `change`: logged (`assigned`, or `claimed` when an agent answering took it) and, after
 * the commit, `interaction.conversation.assigned` to the sockets and `conversation.assigned` on the bus;
 * `by` is the acting employee (null: routing).
 */
export function announceAssignment(change: ConversationChange, a: ConversationAssignment, by: number | null, kind: 'assigned' | 'claimed' = 'assigned'): void {
  const c = a.conversation;
  const out = change.events;
  change.log.record({ kind, conversation: c, at: c.assignedAt ?? new Date(), actorEmployeeId: by, data: { employee_id: a.employeeId, via: a.via } });
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

/**
 * The employee `previous` was assigned to lost it in `change`, by `by`: logged `unassigned` (attributed to the
 * conversation as `after` left it) and, after the commit, `conversation.unassigned` on the bus.
 */
export function announceUnassignment(
  change: ConversationChange,
  previous: ConversationRow & { assignedEmployeeId: number },
  by: number | null,
  after: ConversationRow,
): void {
  change.log.record({
    kind: 'unassigned',
    conversation: after,
    at: new Date(),
    actorEmployeeId: by,
    data: { employee_id: previous.assignedEmployeeId },
  });
  change.events.domainEvent('conversation.unassigned', {
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

/**
 * A status change made in `change` from `previous`: logged (activity/statusEventKind) and, after the commit,
 * `interaction.conversation.status_changed` to the sockets, and on the bus `conversation.resolved` (to
 * resolved) or `conversation.reopened` (resolved to open). `by` is the acting employee, null for the system;
 * `cause` says what moved it (a snooze ending is `via: manual` on the bus, which never carries it).
 */
export function announceStatusChange(
  change: ConversationChange,
  c: ConversationRow,
  previous: ConversationStatus,
  by: number | null,
  cause: StatusCause,
): void {
  if (c.status === previous && c.status !== 'snoozed') return;
  const out = change.events;
  const kind = statusEventKind(previous, c.status, cause);
  const at = c.statusChangedAt ?? new Date();
  if (kind !== null)
    change.log.record({
      kind,
      conversation: c,
      at,
      actorEmployeeId: by,
      data: kind === 'snoozed' ? { until: c.snoozedUntil?.toISOString() ?? null } : {},
    });
  const via: ConversationStatusEvent['via'] = cause === 'inbound_message' ? 'inbound_message' : 'manual';
  emitConversationStatusChanged(out, c, previous, by);
  const type = c.status === 'resolved' ? 'conversation.resolved' : c.status === 'open' && previous === 'resolved' ? 'conversation.reopened' : null;
  if (type === null || previous === c.status) return;
  out.domainEvent(type, {
    type,
    ...conversationFacts(c),
    from_status: previous,
    via,
    changed_by_employee_id: by,
    occurred_at: (c.statusChangedAt ?? new Date()).toISOString(),
  });
}

/**
 * Labels put on or taken off conversation `c` (as it is now) in `change`: after the commit,
 * `interaction.conversation.updated` to the sockets and, when labels were added, `conversation.labeled` on the bus.
 */
export function announceLabels(change: ConversationChange, c: ConversationRow, added: readonly number[], by: number | null, origin?: EventOrigin): void {
  emitConversationUpdated(change.events, c);
  if (added.length === 0) return;
  change.events.domainEvent('conversation.labeled', {
    type: 'conversation.labeled',
    ...conversationFacts(c),
    label_ids: [...added],
    labels: c.labelIds,
    labeled_by_employee_id: by,
    occurred_at: new Date().toISOString(),
    ...(origin ? { origin } : {}),
  });
}

/** What every conversation event on the bus says of its conversation (its ids, channel and assignment). */
function conversationFacts(c: ConversationRow): ConversationEventFacts {
  return {
    entity_id: c.entityId,
    conversation_id: c.id,
    contact_id: c.contactId,
    lead_id: c.leadId,
    group_id: c.groupId,
    channel_type_code: c.channelTypeCode,
    entity_channel_account_id: c.entityChannelAccountId,
    external_chat_id: c.externalChatId,
    assignment_status: c.assignmentStatus === 'assigned' ? 'assigned' : 'unassigned',
    assigned_employee_id: c.assignmentStatus === 'assigned' ? c.assignedEmployeeId : null,
  };
}

/** An SLA cycle of `c` started under a policy: logged for the reports (their SLA achievement's denominator). */
export function logSlaCycle(change: ConversationChange, c: ConversationRow, state: { policyId: number; lastCycle: number }, at: Date): void {
  change.log.record({ kind: 'sla_policy_applied', conversation: c, at, data: { policy_id: state.policyId, cycle: state.lastCycle } });
}

/**
 * After commit: a fired SLA timer of `c`. At risk: `interaction.conversation.sla_at_risk` to the sockets. Breached:
 * `interaction.conversation.sla_breached`, and on the bus `conversation.sla_breached`, plus `conversation.no_reply`
 * for a missed first or next response.
 */
export function announceSla(change: ConversationChange, c: ConversationRow, alert: SlaAlert): void {
  const out = change.events;
  emitConversationSla(out, c, alert.kind, alert);
  if (alert.kind !== 'breach') {
    out.domainEvent('conversation.sla_at_risk', slaEvent('conversation.sla_at_risk', c, alert));
    return;
  }
  // The reports' SLA achievement counts these (docs/api/interactions.md "Conversation event log").
  change.log.record({
    kind: 'sla_breached',
    conversation: c,
    // The due instant, not the timer's run: the log says when the target was missed.
    at: new Date(alert.dueAt),
    data: { metric: alert.metric, cycle: alert.cycle, policy_id: alert.policyId, due_at: alert.dueAt },
  });
  const types = alert.metric === 'resolution' ? (['conversation.sla_breached'] as const) : (['conversation.sla_breached', 'conversation.no_reply'] as const);
  for (const type of types) out.domainEvent(type, slaEvent(type, c, alert));
}

/** `conversation.sla_at_risk`: the shape of `conversation.sla_breached`, for a target not missed yet. */
type ConversationSlaAtRiskEvent = Omit<ConversationSlaEvent, 'type'> & { type: 'conversation.sla_at_risk' };

function slaEvent<T extends ConversationSlaEvent['type'] | 'conversation.sla_at_risk'>(type: T, c: ConversationRow, alert: SlaAlert) {
  return {
    type,
    ...conversationFacts(c),
    queue_id: c.queueId,
    status: c.status,
    sla_metric: alert.metric,
    sla_policy_id: alert.policyId,
    sla_target_minutes: alert.targetMinutes,
    sla_time_basis: alert.basis,
    due_at: alert.dueAt,
    occurred_at: alert.at.toISOString(),
  };
}
