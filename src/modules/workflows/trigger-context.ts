/**
 * Trigger contexts (SPEC "Trigger context shapes"): what an execution stores under `trigger` in
 * `context_json`, built from the domain event that started it. message.inbound, message.outbound and
 * conversation.resolved / conversation.reopened / conversation.sla_breached / conversation.no_reply /
 * conversation.labeled arrive in this shape already (the interactions module publishes them so); the records
 * events are renamed to the same snake_case style. Events a workflow's action caused (message.outbound,
 * conversation.labeled) carry its `origin`, kept apart from the context for loop protection. Adding an event means one entry in `TRIGGER_CONTEXTS` and one
 * field table in field-registry.ts; the engine does not change.
 */
import type { DomainEventMap } from '../../platform/events/bus.js';
import type { EventOrigin } from '../interactions/index.js';
import { minorDigits } from '../commerce/index.js';
import type { TriggerEvent } from './field-registry.js';

export type TriggerContext = Record<string, unknown> & { type: TriggerEvent; entity_id: number };

/** The subset of domain events that start workflows, with their trigger context and the origin they carry. */
export type SubscribedEvent = Exclude<TriggerEvent, 'scheduled' | 'manual'>;

type ToContext<K extends SubscribedEvent> = (payload: DomainEventMap[K]) => { context: TriggerContext; origin?: EventOrigin | undefined };

const leadAssignment =
  <K extends 'lead.assigned' | 'lead.unassigned'>(type: K): ToContext<K> =>
  (e) => ({
    context: {
      type,
      entity_id: e.entityId,
      lead_id: e.leadId,
      group_id: e.groupId,
      employee_id: e.employeeId,
      via: e.via,
      changed_by_employee_id: e.changedByEmployeeId,
      occurred_at: e.occurredAt,
    },
  });

export const TRIGGER_CONTEXTS: { [K in SubscribedEvent]: ToContext<K> } = {
  'message.inbound': (e) => ({ context: { ...e } }),
  'message.outbound': ({ origin, ...e }) => ({ context: { ...e }, origin }),
  'conversation.resolved': (e) => ({ context: { ...e } }),
  'conversation.reopened': (e) => ({ context: { ...e } }),
  'conversation.sla_breached': (e) => ({ context: { ...e } }),
  'conversation.no_reply': (e) => ({ context: { ...e } }),
  'conversation.labeled': ({ origin, ...e }) => ({ context: { ...e }, origin }),
  'contact.created': (e) => ({
    context: {
      type: 'contact.created',
      entity_id: e.entityId,
      contact_id: e.contactId,
      lead_id: e.leadId,
      group_id: e.groupId,
      created_by_employee_id: e.createdByEmployeeId,
      source: e.source,
      occurred_at: e.occurredAt,
    },
  }),
  'lead.created': (e) => ({
    context: {
      type: 'lead.created',
      entity_id: e.entityId,
      lead_id: e.leadId,
      group_id: e.groupId,
      created_by_employee_id: e.createdByEmployeeId,
      occurred_at: e.occurredAt,
    },
  }),
  'lead.assigned': leadAssignment('lead.assigned'),
  'lead.unassigned': leadAssignment('lead.unassigned'),
  'quote.approved': quoteDecided('quote.approved'),
  'quote.rejected': quoteDecided('quote.rejected'),
  'order.created': (e) => ({
    context: {
      type: 'order.created',
      entity_id: e.entityId,
      order_id: e.orderId,
      quote_id: e.quoteId,
      lead_id: e.leadId,
      group_id: e.groupId,
      contact_id: e.contactId,
      seller_employee_id: e.sellerEmployeeId,
      currency: e.currency,
      total: units(e.totalMinor, e.currency),
      created_by_employee_id: e.createdByEmployeeId,
      occurred_at: e.occurredAt,
    },
  }),
  'opportunity.state_changed': (e) => ({
    context: {
      type: 'opportunity.state_changed',
      entity_id: e.entityId,
      opportunity_id: e.opportunityId,
      lead_id: e.leadId,
      group_id: e.groupId,
      from_state_id: e.fromStateId,
      from_state: e.fromState,
      to_state_id: e.toStateId,
      to_state: e.toState,
      outcome: e.outcome,
      changed_by_employee_id: e.changedByEmployeeId,
      occurred_at: e.occurredAt,
    },
  }),
};

/** Minor units as a number of currency units (1250 GTQ cents → 12.5) for filters such as `trigger.total gt 1000`. */
/** An amount in minor units of `currency` as currency units (filters compare `trigger.total gt 1000`). */
function units(minor: number, currency: string): number {
  return minor / 10 ** (minorDigits(currency) ?? 2);
}

function quoteDecided<K extends 'quote.approved' | 'quote.rejected'>(type: K): ToContext<K> {
  return (e) => ({
    context: {
      type,
      entity_id: e.entityId,
      quote_id: e.quoteId,
      lead_id: e.leadId,
      group_id: e.groupId,
      contact_id: e.contactId,
      seller_employee_id: e.sellerEmployeeId,
      currency: e.currency,
      total: units(e.totalMinor, e.currency),
      changed_by_employee_id: e.changedByEmployeeId,
      occurred_at: e.occurredAt,
    },
  });
}

export const SUBSCRIBED_EVENTS = Object.keys(TRIGGER_CONTEXTS) as SubscribedEvent[];
