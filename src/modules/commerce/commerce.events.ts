/**
 * Domain events of commerce (SPEC "Workflow trigger events", post-MVP): published in the transaction of the
 * change (its unit of work's `events`, platform/transactions), so durable consumers such as workflows never miss one.
 */
interface QuoteDecidedEvent {
  entityId: number;
  quoteId: number;
  leadId: number;
  groupId: number;
  contactId: number | null;
  sellerEmployeeId: number;
  currency: string;
  totalMinor: number;
  changedByEmployeeId: number | null;
  occurredAt: string;
}

interface OrderCreatedEvent {
  entityId: number;
  orderId: number;
  quoteId: number | null;
  leadId: number;
  groupId: number;
  contactId: number | null;
  sellerEmployeeId: number;
  currency: string;
  totalMinor: number;
  createdByEmployeeId: number | null;
  occurredAt: string;
}

interface OpportunityStateChangedEvent {
  entityId: number;
  opportunityId: number;
  leadId: number;
  groupId: number;
  fromStateId: number | null;
  fromState: string | null;
  toStateId: number;
  toState: string;
  /** `open`, `won` or `lost`: the outcome of the state moved to. */
  outcome: 'open' | 'won' | 'lost';
  changedByEmployeeId: number | null;
  occurredAt: string;
}

declare module '../../platform/events/domain-events.js' {
  interface DomainEventMap {
    'quote.approved': QuoteDecidedEvent;
    'quote.rejected': QuoteDecidedEvent;
    'order.created': OrderCreatedEvent;
    'opportunity.state_changed': OpportunityStateChangedEvent;
  }
}

export {};
