/**
 * Preset cards (SPEC "Presets"): an event, pre-filled filters and a label. The client creates a workflow
 * with a `preset_code` and the server resolves the event and the filters here; the code is stored in
 * `workflow_step_triggers.preset_code` and never read by the engine.
 *
 * SPEC names no codes for the post-MVP CRM cards: ours are `crm_<event>` (docs/decisions.md). SPEC's CRM
 * cards all have an emit point here; `available` stays for cards of events planned later. The conversation
 * lifecycle cards (`conv_resolved`: a conversation is resolved; `conv_reopened`: a resolved one is reopened)
 * are ours too (issue 30), and so are the service-level cards (issue 31): `sla_breached` (any missed target of an
 * SLA policy) and `sla_no_reply_<action>` (no reply within a response target of N business minutes), whose
 * `steps` propose the action (reassign through a routing queue, add a note, call a webhook) with the values the
 * user fills in; a workflow created from such a card without `steps` takes them. `conv_labeled` (labels were put on
 * a conversation, issue 49) has no pre-filled filters: which labels is the user's filter (`trigger.label_ids`).
 */
import type { FieldError } from '../../platform/errors.js';
import type { FilterNode } from './filter-engine.js';
import type { TriggerEvent } from './field-registry.js';

/** What the user fills in on a card: the keyword of msg_keyword, the time of a scheduled card, the minutes, queue and URL of an SLA card. */
type PresetInput = 'keyword' | 'run_at_time' | 'timezone' | 'minutes' | 'queue_id' | 'url';

export interface PresetCard {
  code: string;
  /** The event the card triggers on; a string for planned events this service does not emit yet. */
  event: TriggerEvent;
  category: 'Mensajeria' | 'Tiempo' | 'Manual' | 'CRM';
  label: string;
  /** Pre-filled filters; `{input}` marks a value the user fills in. */
  filters: FilterNode[];
  /** Inputs the card needs (required ones) or offers (optional ones). */
  inputs: { name: PresetInput; required: boolean; description: string }[];
  /** False for cards whose event is planned but not emitted yet. */
  available: boolean;
  /** Steps the card proposes (`{input}` marks a value the user fills in); a workflow created without steps takes them. */
  steps?: Record<string, unknown>[];
}

const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];
const minutesInput = { name: 'minutes' as const, required: true, description: 'the response target of the SLA policy, in business minutes (a whole number)' };
/** No reply within `{minutes}` business minutes: a first or next response target of that many business minutes was missed. */
const noReplyFilters: FilterNode[] = [
  { field: 'trigger.sla_time_basis', operator: 'eq', value: 'business' },
  { field: 'trigger.sla_target_minutes', operator: 'eq', value: '{minutes}' },
];
const WEEKDAYS = [1, 2, 3, 4, 5];
const scheduleInputs: PresetCard['inputs'] = [
  { name: 'run_at_time', required: true, description: 'local time HH:mm' },
  { name: 'timezone', required: false, description: 'IANA time zone; default the entity time zone' },
];

export const PRESET_CARDS: readonly PresetCard[] = [
  {
    code: 'msg_unassigned',
    event: 'message.inbound',
    category: 'Mensajeria',
    label: 'Mensaje sin asignar',
    filters: [{ field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' }],
    inputs: [],
    available: true,
  },
  {
    code: 'msg_assigned',
    event: 'message.inbound',
    category: 'Mensajeria',
    label: 'Mensaje asignado',
    filters: [{ field: 'trigger.assignment_status', operator: 'eq', value: 'assigned' }],
    inputs: [],
    available: true,
  },
  {
    code: 'msg_first',
    event: 'message.inbound',
    category: 'Mensajeria',
    label: 'Primer mensaje del contacto',
    filters: [{ field: 'trigger.is_first_message', operator: 'eq', value: true }],
    inputs: [],
    available: true,
  },
  { code: 'msg_any', event: 'message.inbound', category: 'Mensajeria', label: 'Cualquier mensaje', filters: [], inputs: [], available: true },
  {
    code: 'msg_keyword',
    event: 'message.inbound',
    category: 'Mensajeria',
    label: 'Mensaje con palabra clave',
    filters: [{ field: 'trigger.message_text', operator: 'contains', value: '{keyword}' }],
    inputs: [{ name: 'keyword', required: true, description: 'text the message must contain (case-insensitive)' }],
    available: true,
  },
  {
    code: 'sched_daily',
    event: 'scheduled',
    category: 'Tiempo',
    label: 'Todos los días',
    filters: [{ field: 'active_days', operator: 'in', value: ALL_DAYS }],
    inputs: scheduleInputs,
    available: true,
  },
  {
    code: 'sched_weekdays',
    event: 'scheduled',
    category: 'Tiempo',
    label: 'Días hábiles',
    filters: [{ field: 'active_days', operator: 'in', value: WEEKDAYS }],
    inputs: scheduleInputs,
    available: true,
  },
  { code: 'manual', event: 'manual', category: 'Manual', label: 'Ejecución manual', filters: [], inputs: [], available: true },
  { code: 'crm_lead_created', event: 'lead.created', category: 'CRM', label: 'Lead creado', filters: [], inputs: [], available: true },
  { code: 'crm_lead_assigned', event: 'lead.assigned', category: 'CRM', label: 'Lead asignado', filters: [], inputs: [], available: true },
  { code: 'crm_lead_unassigned', event: 'lead.unassigned', category: 'CRM', label: 'Lead desasignado', filters: [], inputs: [], available: true },
  { code: 'crm_contact_created', event: 'contact.created', category: 'CRM', label: 'Contacto creado', filters: [], inputs: [], available: true },
  { code: 'crm_quote_approved', event: 'quote.approved', category: 'CRM', label: 'Cotización aprobada', filters: [], inputs: [], available: true },
  {
    code: 'crm_opportunity_state_changed',
    event: 'opportunity.state_changed',
    category: 'CRM',
    label: 'Oportunidad cambió de estado',
    filters: [],
    inputs: [],
    available: true,
  },
  {
    code: 'conv_resolved',
    event: 'conversation.resolved',
    category: 'Mensajeria',
    label: 'Conversación resuelta',
    filters: [],
    inputs: [],
    available: true,
  },
  {
    code: 'conv_reopened',
    event: 'conversation.reopened',
    category: 'Mensajeria',
    label: 'Conversación resuelta reabierta',
    filters: [],
    inputs: [],
    available: true,
  },
  {
    code: 'conv_labeled',
    event: 'conversation.labeled',
    category: 'Mensajeria',
    label: 'Conversación etiquetada',
    filters: [],
    inputs: [],
    available: true,
  },
  {
    code: 'sla_breached',
    event: 'conversation.sla_breached',
    category: 'Mensajeria',
    label: 'SLA incumplido',
    filters: [],
    inputs: [],
    available: true,
  },
  {
    code: 'sla_no_reply_reassign',
    event: 'conversation.no_reply',
    category: 'Mensajeria',
    label: 'Sin respuesta en N minutos hábiles: reasignar por una cola',
    filters: noReplyFilters,
    inputs: [minutesInput, { name: 'queue_id', required: true, description: 'the routing queue whose next member takes the conversation' }],
    available: true,
    steps: [{ key: 'reassign', action: 'assign_conversation', queue_id: '{queue_id}' }],
  },
  {
    code: 'sla_no_reply_note',
    event: 'conversation.no_reply',
    category: 'Mensajeria',
    label: 'Sin respuesta en N minutos hábiles: agregar una nota',
    filters: noReplyFilters,
    inputs: [minutesInput],
    available: true,
    steps: [{ key: 'note', action: 'add_note', text: 'Sin respuesta dentro del SLA ({{trigger.sla_target_minutes}} minutos hábiles)' }],
  },
  {
    code: 'sla_no_reply_webhook',
    event: 'conversation.no_reply',
    category: 'Mensajeria',
    label: 'Sin respuesta en N minutos hábiles: llamar un webhook',
    filters: noReplyFilters,
    inputs: [minutesInput, { name: 'url', required: true, description: 'HTTPS URL the execution context is POSTed to' }],
    available: true,
    steps: [{ key: 'notify', action: 'webhook', url: '{url}' }],
  },
];

export type PresetValues = Partial<Record<PresetInput, string>>;

/**
 * The event and filters of card `code` with the user's `values` filled in, followed by `extra` filters
 * (AND). Errors name `/body/preset_code` or `/body/preset_values/<input>`.
 */
export function resolvePreset(
  code: string,
  values: PresetValues,
  extra: FilterNode[],
): { event: TriggerEvent; filters: FilterNode[]; steps?: Record<string, unknown>[] } | { errors: FieldError[] } {
  const card = PRESET_CARDS.find((c) => c.code === code);
  if (!card) return { errors: [{ field: '/body/preset_code', message: `unknown preset; one of ${PRESET_CARDS.map((c) => c.code).join(', ')}` }] };
  if (!card.available) return { errors: [{ field: '/body/preset_code', message: `${code} is planned: its event (${card.event}) is not emitted yet` }] };
  const errors: FieldError[] = [];
  for (const input of card.inputs) {
    if (input.required && !values[input.name]?.trim())
      errors.push({ field: `/body/preset_values/${input.name}`, message: `${code} needs ${input.name}: ${input.description}` });
  }
  for (const name of Object.keys(values)) {
    if (!card.inputs.some((i) => i.name === name)) errors.push({ field: `/body/preset_values/${name}`, message: `${code} takes no ${name}` });
  }
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes.trim());
  if (minutes !== undefined && !(Number.isInteger(minutes) && minutes >= 1 && minutes <= 525_600))
    errors.push({ field: '/body/preset_values/minutes', message: 'a whole number of minutes from 1 to 525600' });
  const queueId = values.queue_id === undefined ? undefined : Number(values.queue_id.trim());
  if (queueId !== undefined && !(Number.isInteger(queueId) && queueId >= 1 && queueId <= 2_147_483_647))
    errors.push({ field: '/body/preset_values/queue_id', message: 'a routing queue id' });
  if (errors.length > 0) return { errors };
  const fill = (value: unknown): unknown =>
    value === '{keyword}'
      ? values.keyword!.trim()
      : value === '{minutes}'
        ? minutes
        : value === '{queue_id}'
          ? queueId
          : value === '{url}'
            ? values.url!.trim()
            : value;
  const filters: FilterNode[] = card.filters.map((f) => ('field' in f ? { ...f, value: fill(f.value) } : f));
  if (card.event === 'scheduled') {
    filters.unshift({ field: 'run_at_time', operator: 'eq', value: values.run_at_time });
    if (values.timezone) filters.splice(1, 0, { field: 'timezone', operator: 'eq', value: values.timezone });
  }
  const steps = card.steps?.map((s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, fill(v)])));
  return { event: card.event, filters: [...filters, ...extra], ...(steps ? { steps } : {}) };
}
