/**
 * The domain events other systems may subscribe to (issue 53), from the catalogue of `DomainEventMap`, and the
 * one this module publishes: `webhook_endpoint.disabled`, so that the entity's webhook managers are told.
 */
import type { DomainEventName } from '../../platform/events/domain-events.js';

interface WebhookEndpointDisabled {
  entityId: number;
  endpointId: number;
  url: string;
  /** `gone` (the receiver answered 410) or `failing` (failing for 5 days in a row). */
  reason: 'gone' | 'failing';
  occurredAt: string;
}

declare module '../../platform/events/domain-events.js' {
  interface DomainEventMap {
    'webhook_endpoint.disabled': WebhookEndpointDisabled;
  }
}

/** The event types an endpoint may subscribe to, with what each means (GET /api/webhooks/event-types). */
export const WEBHOOK_EVENT_TYPES = [
  ['lead.created', 'A lead was created (by a person, an API key, a conversation or a form)'],
  ['contact.created', 'A contact was created'],
  ['lead.assigned', 'A seller was assigned to a lead'],
  ['lead.unassigned', 'A seller was removed from a lead'],
  ['message.inbound', 'A customer message arrived on any channel'],
  ['message.outbound', 'A message was sent to a customer'],
  ['conversation.resolved', 'A conversation was resolved'],
  ['conversation.reopened', 'A conversation was reopened'],
  ['conversation.assigned', 'A conversation was assigned to an agent'],
  ['conversation.unassigned', 'A conversation lost its agent'],
  ['quote.approved', 'A quote was approved'],
  ['quote.rejected', 'A quote was rejected'],
  ['order.created', 'An order was placed'],
  ['opportunity.state_changed', 'An opportunity moved in its pipeline'],
  ['webhook_endpoint.disabled', 'One of the entity’s webhook endpoints was disabled (410, or 5 days failing)'],
] as const satisfies readonly (readonly [DomainEventName, string])[];

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number][0];
export const WEBHOOK_EVENT_NAMES: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES.map(([name]) => name);

/** The version of the payload envelope `{ type, version, timestamp, data }` (bumped on a breaking change). */
export const WEBHOOK_PAYLOAD_VERSION = 1;

/** The entity of a domain event's payload (records and commerce say `entityId`, interactions `entity_id`). */
export function entityOfEvent(payload: unknown): number | undefined {
  const p = payload as { entityId?: unknown; entity_id?: unknown };
  const id = p.entityId ?? p.entity_id;
  return typeof id === 'number' ? id : undefined;
}
