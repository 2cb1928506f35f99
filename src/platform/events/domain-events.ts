/**
 * The typed map of domain events. Modules add theirs by augmenting it:
 * `declare module '../../platform/events/domain-events.js' { interface DomainEventMap { 'lead.created': LeadCreated } }`
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainEventMap {}

export type DomainEventName = keyof DomainEventMap;
