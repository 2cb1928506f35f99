/**
 * The field registry (SPEC "Field registry"): for each trigger event, the fields a filter may name, their
 * type, the operators each allows and, for enumerations, the values. `validateFilters` checks a filter
 * tree against it when a workflow is saved, so that an unknown field, an operator the field does not
 * allow or a value of the wrong type is a 400 naming the filter, never a silent false at run time.
 *
 * SPEC's tables are taken as they are (message.inbound, scheduled; manual has no filters, its `erp.*`
 * fields serve condition steps), with SPEC's `erp.recent_invoices.*` examples. Our
 * additions, marked `addition: true` in the served registry: identifiers, `occurred_at` with the date
 * operators, and one table per post-MVP event that has an emit point (docs/decisions.md "Workflows"), and
 * `labels` (issue 49): the label ids the event's conversation (or lead) carries when the filter is evaluated.
 * Conditions between steps may also name `workflow.step_visits.<step key>` (number).
 */
import { DateTime, Duration } from 'luxon';
import type { FieldError } from '../../platform/errors.js';
import { FILTER_OPERATORS, type FilterOperator } from './filter-engine.js';

export const TRIGGER_EVENTS = [
  'message.inbound',
  'scheduled',
  'manual',
  'message.outbound',
  'contact.created',
  'lead.created',
  'lead.assigned',
  'lead.unassigned',
  'quote.approved',
  'quote.rejected',
  'order.created',
  'opportunity.state_changed',
  'conversation.resolved',
  'conversation.reopened',
  'conversation.sla_breached',
  'conversation.no_reply',
  'conversation.labeled',
] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/** SPEC "Workflow trigger events": which events are MVP and which are post-MVP with an emit point here. */
export const EVENT_STATUS: Record<TriggerEvent, 'mvp' | 'post_mvp'> = {
  'message.inbound': 'mvp',
  scheduled: 'mvp',
  manual: 'mvp',
  'message.outbound': 'post_mvp',
  'contact.created': 'post_mvp',
  'lead.created': 'post_mvp',
  'lead.assigned': 'post_mvp',
  'lead.unassigned': 'post_mvp',
  'quote.approved': 'post_mvp',
  'quote.rejected': 'post_mvp',
  'order.created': 'post_mvp',
  'opportunity.state_changed': 'post_mvp',
  'conversation.resolved': 'post_mvp',
  'conversation.reopened': 'post_mvp',
  'conversation.sla_breached': 'post_mvp',
  'conversation.no_reply': 'post_mvp',
  'conversation.labeled': 'post_mvp',
};

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'number[]';

export interface FieldDefinition {
  field: string;
  type: FieldType;
  operators: readonly FilterOperator[];
  /** Allowed values of an enumeration. */
  values?: readonly (string | number)[];
  /** Text compares case-insensitively. */
  caseInsensitive?: boolean;
  description: string;
  /** Not in SPEC's tables: ours (docs/decisions.md). */
  addition?: boolean;
  /** Only condition steps may name it (the manual trigger has no filters). */
  conditionsOnly?: boolean;
}

const CHANNEL_TYPE_CODES = ['chatapp_api', 'chatapp_business', 'social_messenger', 'social_dm'] as const;
const ID_OPERATORS: FilterOperator[] = ['eq', 'neq', 'in', 'not_in'];
const DATE_OPERATORS: FilterOperator[] = ['before', 'after'];

const id = (field: string, description: string): FieldDefinition => ({ field, type: 'number', operators: ID_OPERATORS, description, addition: true });
const occurredAt: FieldDefinition = {
  field: 'trigger.occurred_at',
  type: 'date',
  operators: DATE_OPERATORS,
  description: 'when the event happened',
  addition: true,
};
const recordIds = [id('trigger.contact_id', 'contact'), id('trigger.lead_id', 'lead'), id('trigger.group_id', 'group')];

/**
 * Operators on a list of label ids (the engine's array semantics): `contains` one label, `in` any of them, `not_in`
 * none of them; "all of them" is one `contains` per label (filters AND).
 */
const LABEL_OPERATORS: FilterOperator[] = ['contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'];
/** The field `labels` (issue 49): read when a trigger filter or a condition names it, not carried by the event (label-fields.ts). */
const labelsOf = (what: string): FieldDefinition => ({
  field: 'labels',
  type: 'number[]',
  operators: LABEL_OPERATORS,
  description: `label ids ${what} carries when the filter is evaluated`,
  addition: true,
});
const conversationLabels = labelsOf("the conversation (its own, its contact's and its lead's)");
const leadLabels = labelsOf('the lead');

/**
 * The group's recent invoices (SPEC "Filter engine" examples; docs/decisions.md "Workflow ERP fields"):
 * absent when the group has no ERP client or the ERP cannot be asked in time, so `is_empty` holds.
 */
const ERP_FIELDS: FieldDefinition[] = [
  {
    field: 'erp.recent_invoices.count',
    type: 'number',
    operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'],
    description: "invoices (an integer) of the contact's group's ERP clients in the last 30 days; empty when the ERP cannot be asked",
  },
  {
    field: 'erp.recent_invoices.total',
    type: 'number',
    operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'],
    description: 'sum of those invoices in currency units (e.g. 1250.5); empty when the ERP cannot be asked',
  },
];

const MESSAGE_INBOUND: FieldDefinition[] = [
  {
    field: 'trigger.channel_type_code',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in'],
    values: CHANNEL_TYPE_CODES,
    description: 'channel of the conversation',
  },
  {
    field: 'trigger.assignment_status',
    type: 'string',
    operators: ['eq'],
    values: ['assigned', 'unassigned'],
    description: 'whether the conversation has an agent',
  },
  {
    field: 'trigger.message_text',
    type: 'string',
    operators: ['contains', 'not_contains', 'is_empty', 'is_not_empty'],
    caseInsensitive: true,
    description: 'message body',
  },
  { field: 'trigger.is_first_message', type: 'boolean', operators: ['eq'], description: 'first message of this contact' },
  {
    field: 'trigger.sender_name',
    type: 'string',
    operators: ['contains', 'eq', 'is_empty', 'is_not_empty'],
    caseInsensitive: true,
    description: 'sender name',
  },
  {
    field: 'trigger.assigned_employee_ids',
    type: 'number[]',
    operators: ['contains', 'not_contains', 'is_empty', 'is_not_empty'],
    description: 'employees assigned to the conversation',
    addition: true,
  },
  id('trigger.entity_channel_account_id', 'channel account that received the message'),
  ...recordIds,
  occurredAt,
  conversationLabels,
  ...ERP_FIELDS,
];

/** The schedule of a scheduled workflow, written as filters (SPEC); evaluated at each slot against its time. */
const SCHEDULED: FieldDefinition[] = [
  { field: 'run_at_time', type: 'string', operators: ['eq'], description: 'time HH:mm; required' },
  { field: 'timezone', type: 'string', operators: ['eq'], description: 'IANA time zone; default the entity time zone' },
  { field: 'active_days', type: 'number[]', operators: ['in'], values: [1, 2, 3, 4, 5, 6, 7], description: '1 = Monday to 7 = Sunday; default all days' },
];

const MESSAGE_OUTBOUND: FieldDefinition[] = [
  {
    field: 'trigger.channel_type_code',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in'],
    values: CHANNEL_TYPE_CODES,
    description: 'channel of the conversation',
    addition: true,
  },
  { field: 'trigger.message_type', type: 'string', operators: ['eq', 'neq', 'in', 'not_in'], description: 'text, image, template, ...', addition: true },
  {
    field: 'trigger.message_text',
    type: 'string',
    operators: ['contains', 'not_contains', 'is_empty', 'is_not_empty'],
    caseInsensitive: true,
    description: 'message body',
    addition: true,
  },
  {
    field: 'trigger.sent_by_employee_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'sender; empty when a workflow sent it',
    addition: true,
  },
  ...recordIds,
  occurredAt,
  conversationLabels,
];

const CONTACT_CREATED: FieldDefinition[] = [
  {
    field: 'trigger.source',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in'],
    values: ['api', 'conversation', 'form'],
    description: 'how the contact was created',
    addition: true,
  },
  {
    field: 'trigger.created_by_employee_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'creator; empty when created by the system',
    addition: true,
  },
  ...recordIds,
  occurredAt,
];

const LEAD_CREATED: FieldDefinition[] = [
  {
    field: 'trigger.created_by_employee_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'creator; empty when created by the system',
    addition: true,
  },
  id('trigger.lead_id', 'lead'),
  id('trigger.group_id', 'group'),
  occurredAt,
  leadLabels,
];

const LEAD_ASSIGNMENT: FieldDefinition[] = [
  id('trigger.employee_id', 'seller assigned or removed'),
  {
    field: 'trigger.via',
    type: 'string',
    operators: ['eq', 'neq'],
    values: ['lead', 'group'],
    description: "direct, or through the lead's group",
    addition: true,
  },
  id('trigger.lead_id', 'lead'),
  id('trigger.group_id', 'group'),
  occurredAt,
  leadLabels,
];

const amount = (field: string, description: string): FieldDefinition => ({
  field,
  type: 'number',
  operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'],
  description,
  addition: true,
});
const currency: FieldDefinition = {
  field: 'trigger.currency',
  type: 'string',
  operators: ['eq', 'neq', 'in', 'not_in'],
  description: 'ISO 4217 code',
  addition: true,
};

const QUOTE_DECIDED: FieldDefinition[] = [
  amount('trigger.total', 'quote total in currency units (e.g. 1250.5)'),
  currency,
  id('trigger.seller_employee_id', 'seller of the quote'),
  id('trigger.quote_id', 'quote'),
  ...recordIds,
  occurredAt,
];
const ORDER_CREATED: FieldDefinition[] = [
  amount('trigger.total', 'order total in currency units'),
  currency,
  id('trigger.seller_employee_id', 'seller of the order'),
  {
    field: 'trigger.quote_id',
    type: 'number',
    operators: ['eq', 'neq', 'is_empty', 'is_not_empty'],
    description: 'the quote it came from; empty for a direct order',
    addition: true,
  },
  ...recordIds,
  occurredAt,
];
const OPPORTUNITY_STATE_CHANGED: FieldDefinition[] = [
  { field: 'trigger.to_state', type: 'string', operators: ['eq', 'neq', 'in', 'not_in'], description: 'name of the state moved to', addition: true },
  {
    field: 'trigger.from_state',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'name of the state left; empty when the opportunity was opened',
    addition: true,
  },
  {
    field: 'trigger.outcome',
    type: 'string',
    operators: ['eq', 'neq'],
    values: ['open', 'won', 'lost'],
    description: 'outcome of the state moved to',
    addition: true,
  },
  id('trigger.opportunity_id', 'opportunity'),
  id('trigger.lead_id', 'lead'),
  id('trigger.group_id', 'group'),
  occurredAt,
];

/** The conversation's channel and assignment, as the conversation trigger events carry them. */
const channelOfConversation: FieldDefinition = {
  field: 'trigger.channel_type_code',
  type: 'string',
  operators: ['eq', 'neq', 'in', 'not_in'],
  values: CHANNEL_TYPE_CODES,
  description: 'channel of the conversation',
  addition: true,
};
const assignmentOfConversation: FieldDefinition[] = [
  {
    field: 'trigger.assignment_status',
    type: 'string',
    operators: ['eq', 'neq'],
    values: ['assigned', 'unassigned'],
    description: 'assigned, or unassigned (waiting in a queue counts as unassigned)',
    addition: true,
  },
  {
    field: 'trigger.assigned_employee_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'the assignee; empty when unassigned',
    addition: true,
  },
];

const CONVERSATION_STATUS_CHANGED: FieldDefinition[] = [
  channelOfConversation,
  ...assignmentOfConversation,
  {
    field: 'trigger.from_status',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in'],
    values: ['open', 'pending', 'snoozed', 'resolved'],
    description: 'the status the conversation left',
    addition: true,
  },
  {
    field: 'trigger.via',
    type: 'string',
    operators: ['eq', 'neq'],
    values: ['manual', 'inbound_message'],
    description: 'manual (an employee) or inbound_message (the customer wrote to a resolved conversation)',
    addition: true,
  },
  {
    field: 'trigger.changed_by_employee_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'who changed it; empty when the system did',
    addition: true,
  },
  id('trigger.conversation_id', 'conversation'),
  ...recordIds,
  occurredAt,
  conversationLabels,
];

/** conversation.sla_breached / conversation.no_reply (issue 31): the conversation and the missed target of its SLA policy. */
const CONVERSATION_SLA: FieldDefinition[] = [
  {
    field: 'trigger.sla_metric',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in'],
    values: ['first_response', 'next_response', 'resolution'],
    description: 'the missed target (no_reply: first_response or next_response)',
    addition: true,
  },
  {
    field: 'trigger.sla_target_minutes',
    type: 'number',
    operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'],
    description: "the policy's target for that metric, in minutes of trigger.sla_time_basis",
    addition: true,
  },
  {
    field: 'trigger.sla_time_basis',
    type: 'string',
    operators: ['eq', 'neq'],
    values: ['business', 'calendar'],
    description: 'business (minutes of the business hours) or calendar minutes',
    addition: true,
  },
  id('trigger.sla_policy_id', 'the SLA policy'),
  { field: 'trigger.due_at', type: 'date', operators: DATE_OPERATORS, description: 'when the target was due', addition: true },
  channelOfConversation,
  {
    field: 'trigger.status',
    type: 'string',
    operators: ['eq', 'neq', 'in', 'not_in'],
    values: ['open', 'pending', 'snoozed', 'resolved'],
    description: 'the conversation status',
    addition: true,
  },
  ...assignmentOfConversation,
  {
    field: 'trigger.queue_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'the routing queue of the conversation; empty when none',
    addition: true,
  },
  id('trigger.conversation_id', 'conversation'),
  ...recordIds,
  occurredAt,
  conversationLabels,
];

/** conversation.labeled (issue 49): labels were put on the conversation itself, by an employee or a workflow. */
const CONVERSATION_LABELED: FieldDefinition[] = [
  {
    field: 'trigger.label_ids',
    type: 'number[]',
    operators: ['contains', 'not_contains', 'in', 'not_in'],
    description: 'label ids this change put on the conversation',
    addition: true,
  },
  conversationLabels,
  {
    field: 'trigger.labeled_by_employee_id',
    type: 'number',
    operators: ['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty'],
    description: 'who labelled it; empty when a workflow did',
    addition: true,
  },
  channelOfConversation,
  ...assignmentOfConversation,
  id('trigger.conversation_id', 'conversation'),
  ...recordIds,
  occurredAt,
];

export const FIELD_REGISTRY: Record<TriggerEvent, readonly FieldDefinition[]> = {
  'message.inbound': MESSAGE_INBOUND,
  scheduled: SCHEDULED,
  // The conversation of a manual run is its contact's latest, the one its steps act on.
  manual: [...ERP_FIELDS, conversationLabels].map((f) => ({ ...f, conditionsOnly: true })),
  'message.outbound': MESSAGE_OUTBOUND,
  'contact.created': CONTACT_CREATED,
  'lead.created': LEAD_CREATED,
  'lead.assigned': LEAD_ASSIGNMENT,
  'lead.unassigned': LEAD_ASSIGNMENT,
  'quote.approved': QUOTE_DECIDED,
  'quote.rejected': QUOTE_DECIDED,
  'order.created': ORDER_CREATED,
  'opportunity.state_changed': OPPORTUNITY_STATE_CHANGED,
  'conversation.resolved': CONVERSATION_STATUS_CHANGED,
  'conversation.reopened': CONVERSATION_STATUS_CHANGED,
  'conversation.sla_breached': CONVERSATION_SLA,
  'conversation.no_reply': CONVERSATION_SLA,
  'conversation.labeled': CONVERSATION_LABELED,
};

const STEP_VISITS = /^workflow\.step_visits\.([a-z0-9_]{1,40})$/;

/** Where a filter tree is checked: the trigger of `event`, or a condition step (which may also read step visits of `stepKeys`). */
export interface FilterScope {
  event: TriggerEvent;
  stepKeys?: ReadonlySet<string>;
}

/** The definition of `field` in `scope`, or undefined when the field is unknown there. */
export function fieldDefinition(scope: FilterScope, field: string): FieldDefinition | undefined {
  const known = FIELD_REGISTRY[scope.event].find((f) => f.field === field && (!f.conditionsOnly || scope.stepKeys));
  if (known) return known;
  const visits = scope.stepKeys && STEP_VISITS.exec(field);
  if (visits && scope.stepKeys!.has(visits[1]!))
    return { field, type: 'number', operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'], description: 'times the step has run in this execution' };
  return undefined;
}

/** Whether text at `field` compares case-insensitively in `event`'s registry. */
export function caseInsensitiveFields(event: TriggerEvent): (field: string) => boolean {
  const set = new Set(FIELD_REGISTRY[event].filter((f) => f.caseInsensitive).map((f) => f.field));
  return (field) => set.has(field);
}

/** Checks `nodes` against the registry; one error per bad filter, its `field` the JSON pointer of the filter under `at`. */
export function validateFilters(scope: FilterScope, nodes: unknown, at: string): FieldError[] {
  if (!Array.isArray(nodes)) return [{ field: at, message: 'must be an array of filters' }];
  const errors: FieldError[] = [];
  nodes.forEach((node, i) => validateNode(scope, node, `${at}/${i}`, errors, 0));
  return errors;
}

const MAX_DEPTH = 4;

function validateNode(scope: FilterScope, node: unknown, at: string, errors: FieldError[], depth: number): void {
  if (node === null || typeof node !== 'object' || Array.isArray(node))
    return void errors.push({ field: at, message: 'must be a filter {field, operator, value} or a group {any: [...]} / {all: [...]}' });
  const n = node as Record<string, unknown>;
  for (const key of ['any', 'all'] as const) {
    if (key in n) {
      if (depth >= MAX_DEPTH) return void errors.push({ field: at, message: `groups nest at most ${MAX_DEPTH} deep` });
      if (Object.keys(n).length !== 1 || !Array.isArray(n[key]) || (n[key] as unknown[]).length === 0)
        return void errors.push({ field: at, message: `a group has only "${key}", a non-empty array` });
      (n[key] as unknown[]).forEach((child, i) => validateNode(scope, child, `${at}/${key}/${i}`, errors, depth + 1));
      return;
    }
  }
  const { field, operator } = n;
  const extra = Object.keys(n).filter((k) => k !== 'field' && k !== 'operator' && k !== 'value');
  if (extra.length > 0) return void errors.push({ field: at, message: `unknown member ${extra.join(', ')}` });
  if (typeof field !== 'string') return void errors.push({ field: at, message: 'field must be a string' });
  const def = fieldDefinition(scope, field);
  if (!def)
    return void errors.push({
      field: at,
      message: `${field} is not a field of ${scope.event}${scope.event === 'manual' ? ' (manual workflows have no filters)' : ''}`,
    });
  if (typeof operator !== 'string' || !(FILTER_OPERATORS as readonly string[]).includes(operator))
    return void errors.push({ field: at, message: `operator must be one of ${FILTER_OPERATORS.join(', ')}` });
  if (!def.operators.includes(operator as FilterOperator))
    return void errors.push({ field: at, message: `${field} allows ${def.operators.join(', ')}, not ${operator}` });
  const problem = valueProblem(def, operator as FilterOperator, n.value, 'value' in n);
  if (problem) errors.push({ field: at, message: `${field} ${operator}: ${problem}` });
}

function valueProblem(def: FieldDefinition, op: FilterOperator, value: unknown, present: boolean): string | undefined {
  if (op === 'is_empty' || op === 'is_not_empty') return present && value !== null ? 'takes no value' : undefined;
  if (!present) return 'needs a value';
  if (op === 'before' || op === 'after') return dateValueProblem(value);
  const element = def.type === 'number[]' ? 'number' : def.type;
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(value) || value.length === 0) return 'value must be a non-empty array';
    for (const v of value) {
      const p = scalarProblem(def, element, v);
      if (p) return p;
    }
    return undefined;
  }
  if (def.type === 'number[]' && op !== 'contains' && op !== 'not_contains') {
    if (!Array.isArray(value)) return 'value must be an array of numbers';
    return value.map((v) => scalarProblem(def, 'number', v)).find(Boolean);
  }
  return scalarProblem(def, element, value);
}

function scalarProblem(def: FieldDefinition, type: Exclude<FieldType, 'number[]'>, v: unknown): string | undefined {
  if (type === 'number' && (typeof v !== 'number' || !Number.isFinite(v))) return 'value must be a number';
  if (type === 'string' && (typeof v !== 'string' || v.length === 0)) return 'value must be non-empty text';
  if (type === 'boolean' && typeof v !== 'boolean') return 'value must be true or false';
  if (type === 'date') return dateValueProblem(v);
  if (def.values && !def.values.includes(v as string | number)) return `value must be one of ${def.values.join(', ')}`;
  if (def.field === 'run_at_time' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(v as string)) return 'value must be a time HH:mm';
  if (def.field === 'timezone' && !DateTime.local().setZone(v as string).isValid) return 'value must be an IANA time zone (e.g. America/Guatemala)';
  return undefined;
}

function dateValueProblem(v: unknown): string | undefined {
  if (typeof v === 'string') return Number.isNaN(Date.parse(v)) || !/^\d{4}-\d{2}-\d{2}/.test(v) ? 'value must be an ISO 8601 date or time' : undefined;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    const iso = (v as Record<string, unknown>)[keys[0]!];
    if (keys.length === 1 && (keys[0] === 'ago' || keys[0] === 'from_now') && typeof iso === 'string' && Duration.fromISO(iso).isValid) return undefined;
  }
  return 'value must be an ISO 8601 instant, {"ago": "P3D"} or {"from_now": "PT2H"}';
}
