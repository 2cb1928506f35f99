/**
 * Preset cards (SPEC "Presets"): an event, pre-filled filters and a label. The client creates a workflow
 * with a `preset_code` and the server resolves the event and the filters here; the code is stored in
 * `workflow_step_triggers.preset_code` and never read by the engine.
 *
 * SPEC names no codes for the post-MVP CRM cards: ours are `crm_<event>` (docs/decisions.md). SPEC's CRM
 * cards all have an emit point here; `available` stays for cards of events planned later.
 */
import type { FieldError } from '../../platform/errors.js';
import type { FilterNode } from './filter-engine.js';
import type { TriggerEvent } from './field-registry.js';

/** What the user fills in on a card: the keyword of msg_keyword, the time of a scheduled card. */
export type PresetInput = 'keyword' | 'run_at_time' | 'timezone';

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
}

const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];
const WEEKDAYS = [1, 2, 3, 4, 5];
const scheduleInputs: PresetCard['inputs'] = [
  { name: 'run_at_time', required: true, description: 'local time HH:mm' },
  { name: 'timezone', required: false, description: 'IANA time zone; default the entity time zone' },
];

export const PRESET_CARDS: readonly PresetCard[] = [
  { code: 'msg_unassigned', event: 'message.inbound', category: 'Mensajeria', label: 'Mensaje sin asignar', filters: [{ field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' }], inputs: [], available: true },
  { code: 'msg_assigned', event: 'message.inbound', category: 'Mensajeria', label: 'Mensaje asignado', filters: [{ field: 'trigger.assignment_status', operator: 'eq', value: 'assigned' }], inputs: [], available: true },
  { code: 'msg_first', event: 'message.inbound', category: 'Mensajeria', label: 'Primer mensaje del contacto', filters: [{ field: 'trigger.is_first_message', operator: 'eq', value: true }], inputs: [], available: true },
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
  { code: 'sched_daily', event: 'scheduled', category: 'Tiempo', label: 'Todos los días', filters: [{ field: 'active_days', operator: 'in', value: ALL_DAYS }], inputs: scheduleInputs, available: true },
  { code: 'sched_weekdays', event: 'scheduled', category: 'Tiempo', label: 'Días hábiles', filters: [{ field: 'active_days', operator: 'in', value: WEEKDAYS }], inputs: scheduleInputs, available: true },
  { code: 'manual', event: 'manual', category: 'Manual', label: 'Ejecución manual', filters: [], inputs: [], available: true },
  { code: 'crm_lead_created', event: 'lead.created', category: 'CRM', label: 'Lead creado', filters: [], inputs: [], available: true },
  { code: 'crm_lead_assigned', event: 'lead.assigned', category: 'CRM', label: 'Lead asignado', filters: [], inputs: [], available: true },
  { code: 'crm_lead_unassigned', event: 'lead.unassigned', category: 'CRM', label: 'Lead desasignado', filters: [], inputs: [], available: true },
  { code: 'crm_contact_created', event: 'contact.created', category: 'CRM', label: 'Contacto creado', filters: [], inputs: [], available: true },
  { code: 'crm_quote_approved', event: 'quote.approved', category: 'CRM', label: 'Cotización aprobada', filters: [], inputs: [], available: true },
  { code: 'crm_opportunity_state_changed', event: 'opportunity.state_changed', category: 'CRM', label: 'Oportunidad cambió de estado', filters: [], inputs: [], available: true },
];

export type PresetValues = Partial<Record<PresetInput, string>>;

/**
 * The event and filters of card `code` with the user's `values` filled in, followed by `extra` filters
 * (AND). Errors name `/body/preset_code` or `/body/preset_values/<input>`.
 */
export function resolvePreset(code: string, values: PresetValues, extra: FilterNode[]): { event: TriggerEvent; filters: FilterNode[] } | { errors: FieldError[] } {
  const card = PRESET_CARDS.find((c) => c.code === code);
  if (!card) return { errors: [{ field: '/body/preset_code', message: `unknown preset; one of ${PRESET_CARDS.map((c) => c.code).join(', ')}` }] };
  if (!card.available) return { errors: [{ field: '/body/preset_code', message: `${code} is planned: its event (${card.event}) is not emitted yet` }] };
  const errors: FieldError[] = [];
  for (const input of card.inputs) {
    if (input.required && !values[input.name]?.trim()) errors.push({ field: `/body/preset_values/${input.name}`, message: `${code} needs ${input.name}: ${input.description}` });
  }
  for (const name of Object.keys(values)) {
    if (!card.inputs.some((i) => i.name === name)) errors.push({ field: `/body/preset_values/${name}`, message: `${code} takes no ${name}` });
  }
  if (errors.length > 0) return { errors };
  const filters: FilterNode[] = card.filters.map((f) => ('field' in f && f.value === '{keyword}' ? { ...f, value: values.keyword!.trim() } : f));
  if (card.event === 'scheduled') {
    filters.unshift({ field: 'run_at_time', operator: 'eq', value: values.run_at_time });
    if (values.timezone) filters.splice(1, 0, { field: 'timezone', operator: 'eq', value: values.timezone });
  }
  return { event: card.event, filters: [...filters, ...extra] };
}
