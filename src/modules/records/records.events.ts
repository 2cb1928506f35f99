/**
 * Domain events of CRM records (SPEC "Workflow trigger events"), published after commit on the event
 * bus. Payloads carry ids and the few fields a subscriber filters on; subscribers re-read the rest.
 */
interface LeadCreatedEvent {
  entityId: number;
  leadId: number;
  groupId: number;
  /** Employee who created it; null when created by the system (e.g. an inbound conversation). */
  createdByEmployeeId: number | null;
  occurredAt: string;
}

export interface ContactCreatedEvent {
  entityId: number;
  contactId: number;
  leadId: number;
  groupId: number;
  createdByEmployeeId: number | null;
  /** `api`, `conversation` (unknown sender on a channel), `form` (web form ingest) or `import` (a file, issue 52). */
  source: 'api' | 'conversation' | 'form' | 'import';
  occurredAt: string;
}

interface LeadAssignmentEvent {
  entityId: number;
  leadId: number;
  groupId: number;
  employeeId: number;
  /** `lead` for a direct assignment, `group` for one inherited through the lead's group. */
  via: 'lead' | 'group';
  changedByEmployeeId: number | null;
  occurredAt: string;
}

declare module '../../platform/events/domain-events.js' {
  interface DomainEventMap {
    'lead.created': LeadCreatedEvent;
    'contact.created': ContactCreatedEvent;
    'lead.assigned': LeadAssignmentEvent;
    'lead.unassigned': LeadAssignmentEvent;
  }
}
