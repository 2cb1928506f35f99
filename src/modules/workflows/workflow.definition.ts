/**
 * A workflow definition, `{ trigger, steps }`, as a version stores it, and its checks beyond the route
 * schema: the trigger's filters against the field registry, unique step keys, `next` / `then` / `else`
 * naming existing steps, condition filters (which may also read `workflow.step_visits.<key>`), actions
 * the trigger's event can carry (a scheduled trigger has no conversation), and webhook addresses.
 * `labelReferences` lists the label ids a body names, which the service checks against the catalogue.
 */
import { outboundUrlProblem } from '../../platform/http/outbound.js';
import type { FieldError } from '../../platform/errors.js';
import type { FilterNode } from './filter-engine.js';
import { validateFilters, type TriggerEvent } from './field-registry.js';
import type { Step } from './workflow.schemas.js';
import type { PresetValues } from './presets.js';

export interface TriggerDefinition {
  trigger_type: TriggerEvent;
  preset_code: string | null;
  /** Resolved filters: the preset's with its values filled in, then the extra ones (AND). */
  filters: FilterNode[];
  /** With a preset: what the user filled in and the filters added to the preset's (kept for later changes). */
  preset_values?: PresetValues | undefined;
  extra_filters?: FilterNode[] | undefined;
}

export interface Definition {
  trigger: TriggerDefinition;
  steps: Step[];
}

/** Events whose context names a conversation or a contact (conversation actions need one). */
const WITH_CONVERSATION: ReadonlySet<TriggerEvent> = new Set([
  'message.inbound',
  'message.outbound',
  'contact.created',
  'manual',
  'quote.approved',
  'quote.rejected',
  'order.created',
  'conversation.resolved',
  'conversation.reopened',
  'conversation.sla_breached',
  'conversation.no_reply',
  'conversation.labeled',
]);
/** Events whose context names a lead (assign_seller needs one). */
const WITH_LEAD: ReadonlySet<TriggerEvent> = new Set([
  'message.inbound',
  'message.outbound',
  'contact.created',
  'lead.created',
  'lead.assigned',
  'lead.unassigned',
  'manual',
  'quote.approved',
  'quote.rejected',
  'order.created',
  'opportunity.state_changed',
  'conversation.resolved',
  'conversation.reopened',
  'conversation.sla_breached',
  'conversation.no_reply',
  'conversation.labeled',
]);
const CONVERSATION_ACTIONS = new Set(['send_text', 'send_template', 'assign_conversation', 'add_note', 'set_follow_up', 'add_label', 'remove_label']);
/** Fields whose values are label ids of the entity's catalogue. */
const LABEL_FIELDS = new Set(['labels', 'trigger.label_ids']);

/** The step after `key` when it names no `next`: the following one in the list, or null at the end. */
export function followingStep(steps: readonly Step[], key: string): string | null {
  const i = steps.findIndex((s) => s.key === key);
  return steps[i + 1]?.key ?? null;
}

/** Errors of `definition`, each naming its place in the request body (`/body/steps/2/next`). */
/** `allowedAddresses`: literal addresses a webhook may name although private (WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES). */
export function definitionErrors(definition: Definition, allowedAddresses: readonly string[] = []): FieldError[] {
  const { trigger, steps } = definition;
  const errors = validateFilters({ event: trigger.trigger_type }, trigger.filters, '/body/filters');
  if (trigger.trigger_type === 'scheduled' && !trigger.filters.some((f) => 'field' in f && f.field === 'run_at_time')) {
    errors.push({ field: '/body/filters', message: 'a scheduled workflow needs run_at_time (HH:mm)' });
  }
  const keys = new Set<string>();
  steps.forEach((s, i) => {
    if (keys.has(s.key)) errors.push({ field: `/body/steps/${i}/key`, message: `step key ${s.key} is used twice` });
    keys.add(s.key);
  });
  steps.forEach((s, i) => {
    const at = `/body/steps/${i}`;
    const refs: [string, unknown][] =
      s.action === 'condition'
        ? [
            ['then', s.then],
            ['else', s.else],
          ]
        : [['next', s.next]];
    for (const [name, ref] of refs) if (typeof ref === 'string' && !keys.has(ref)) errors.push({ field: `${at}/${name}`, message: `no step has key ${ref}` });
    if (s.action === 'condition') errors.push(...validateFilters({ event: trigger.trigger_type, stepKeys: keys }, s.filters, `${at}/filters`));
    if (CONVERSATION_ACTIONS.has(s.action) && !WITH_CONVERSATION.has(trigger.trigger_type)) {
      errors.push({ field: `${at}/action`, message: `${s.action} needs a conversation; ${trigger.trigger_type} events name none` });
    }
    if (s.action === 'assign_seller' && !WITH_LEAD.has(trigger.trigger_type))
      errors.push({ field: `${at}/action`, message: `assign_seller needs a lead; ${trigger.trigger_type} events name none` });
    if (s.action === 'assign_conversation' && (s.employee_id === undefined) === (s.queue_id === undefined)) {
      errors.push({ field: at, message: 'assign_conversation takes exactly one of employee_id or queue_id' });
    }
    if (s.action === 'webhook') {
      const problem = webhookUrlProblem(s.url, allowedAddresses);
      if (problem) errors.push({ field: `${at}/url`, message: problem });
    }
  });
  return errors;
}

/**
 * What is wrong with a webhook address at save time: not HTTPS, credentials in it, or a literal
 * loopback/private name. Names that resolve to such addresses are refused when called (outbound-webhook.ts).
 */
function webhookUrlProblem(raw: string, allowedAddresses: readonly string[] = []): string | undefined {
  try {
    const url = new URL(raw);
    if (url.protocol === 'https:' && (url.username !== '' || url.password !== '')) return 'must not carry credentials (use headers)';
  } catch {
    // outboundUrlProblem says so.
  }
  return outboundUrlProblem(raw, { allowedAddresses, requireHttps: true });
}

/** A label id a workflow body names, with its JSON pointer (`/body/steps/1/label_ids/0`, `/body/filters/0/any/1/value/2`). */
interface LabelReference {
  id: number;
  at: string;
}

/**
 * The label ids named by `steps` (`add_label`, `remove_label`, and condition filters) and `filters` (a trigger's) of a
 * body, for the check against the entity's catalogue when it is saved. Malformed filters name none (the registry
 * check refuses them).
 */
export function labelReferences(body: { steps?: readonly Step[] | undefined; filters?: readonly unknown[] | undefined }): LabelReference[] {
  const refs: LabelReference[] = [];
  const inFilters = (nodes: readonly unknown[], at: string): void =>
    nodes.forEach((node, i) => {
      if (node === null || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      for (const key of ['any', 'all'] as const) if (Array.isArray(n[key])) inFilters(n[key] as unknown[], `${at}/${i}/${key}`);
      if (typeof n.field !== 'string' || !LABEL_FIELDS.has(n.field)) return;
      if (typeof n.value === 'number') refs.push({ id: n.value, at: `${at}/${i}/value` });
      if (Array.isArray(n.value))
        n.value.forEach((v, j) => {
          if (typeof v === 'number') refs.push({ id: v, at: `${at}/${i}/value/${j}` });
        });
    });
  inFilters(body.filters ?? [], '/body/filters');
  body.steps?.forEach((s, i) => {
    if (s.action === 'add_label' || s.action === 'remove_label') s.label_ids.forEach((id, j) => refs.push({ id, at: `/body/steps/${i}/label_ids/${j}` }));
    if (s.action === 'condition') inFilters(s.filters, `/body/steps/${i}/filters`);
  });
  return refs;
}
