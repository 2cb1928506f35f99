/**
 * What each step does. Actions act through other modules' services only (interactions for
 * conversations, records for sellers) and are idempotent per step visit: sends carry the visit's
 * idempotency key, assignments, follow-up and labels set a state, a note already last is not added again, and
 * a webhook receives the same `Idempotency-Key` on every attempt. So a step re-run after a crash
 * performs its effect once.
 *
 * `perform` returns the step's result for the run history and, for conditions and waits, where and when
 * to go on; `preview` says what a step would do without doing it (dry runs).
 */
import type { ErpFields } from './erp-fields.js';
import { AppError } from '../../platform/errors.js';
import { isPermanentFailure } from '../../platform/queue/queue.js';
import type { ConversationAutomation, ConversationRef, EventOrigin } from '../interactions/index.js';
import { compileFilters, type FilterNode } from './filter-engine.js';
import { caseInsensitiveFields, type TriggerEvent } from './field-registry.js';
import { renderDeep, renderText } from './text-template.js';
import type { Step } from './workflow.schemas.js';
import { WebhookError, type WebhookCaller } from './outbound-webhook.js';

export interface ActionDeps {
  conversations: ConversationAutomation;
  /** Assigns a seller to a lead as the system (records). */
  assignSeller(entityId: number, leadId: number, employeeId: number): Promise<{ created: boolean }>;
  callWebhook: WebhookCaller;
}

export interface StepRun {
  entityId: number;
  workflowId: number;
  executionId: number;
  event: TriggerEvent;
  /** `wf:<execution>:<step>:<visit>`: the same on every attempt of this visit. */
  idempotencyKey: string;
  origin: EventOrigin;
}

/** `next`: the step to go to (a condition's branch; undefined: the step's own `next` or the following one). */
export interface ActionOutcome {
  result: Record<string, unknown>;
  next?: string | null | undefined;
  delaySeconds?: number;
}

/** Why a step failed, as the run history shows it. */
export interface StepFailure {
  code: string;
  message: string;
  retryable: boolean;
  status?: number;
}

export type ExecutionContext = {
  trigger: Record<string, unknown>;
  workflow: { step_visits: Record<string, number> } & Record<string, unknown>;
  /** ERP fields of message.inbound and manual contexts; absent when the ERP could not be asked. */
  erp?: ErpFields;
  /** Label ids of the conversation (or lead), as last read for a filter naming them (label-fields.ts). */
  labels?: number[];
};

export function createActions(deps: ActionDeps) {
  async function conversationOf(run: StepRun, context: ExecutionContext): Promise<number> {
    const ref = conversationRef(context.trigger);
    const id = ref ? await deps.conversations.resolve(run.entityId, ref) : undefined;
    if (id === undefined) throw new StepError('no_conversation', 'The trigger names no conversation of this entity (nor a contact with one)');
    return id;
  }

  async function perform(step: Step, context: ExecutionContext, run: StepRun): Promise<ActionOutcome> {
    const sendOptions = { idempotencyKey: run.idempotencyKey, origin: run.origin };
    switch (step.action) {
      case 'send_text': {
        const conversationId = await conversationOf(run, context);
        const m = await deps.conversations.send(run.entityId, conversationId, { kind: 'text', body: { body: renderText(step.text, context) } }, sendOptions);
        return { result: { conversation_id: conversationId, message_id: m.id, status: m.status } };
      }
      case 'send_template': {
        const conversationId = await conversationOf(run, context);
        const m = await deps.conversations.send(run.entityId, conversationId, { kind: 'template', body: renderDeep(step.template, context) }, sendOptions);
        return { result: { conversation_id: conversationId, message_id: m.id, status: m.status } };
      }
      case 'assign_conversation': {
        const conversationId = await conversationOf(run, context);
        const to = step.employee_id !== undefined ? { employeeId: step.employee_id } : { queueId: step.queue_id! };
        return { result: { conversation_id: conversationId, ...(await deps.conversations.assign(run.entityId, conversationId, to)) } };
      }
      case 'add_note': {
        const conversationId = await conversationOf(run, context);
        const { noteId } = await deps.conversations.addNote(run.entityId, conversationId, renderText(step.text, context), {
          workflowId: run.workflowId,
          idempotencyKey: run.idempotencyKey,
        });
        return { result: { conversation_id: conversationId, note_id: noteId } };
      }
      case 'set_follow_up': {
        const conversationId = await conversationOf(run, context);
        await deps.conversations.setFollowUp(run.entityId, conversationId, step.follow_up);
        return { result: { conversation_id: conversationId, follow_up: step.follow_up } };
      }
      case 'add_label':
      case 'remove_label': {
        // 404 `not_found` when a label was deleted since the workflow was saved: a failure retrying cannot fix.
        const conversationId = await conversationOf(run, context);
        await deps.conversations.label(run.entityId, conversationId, step.action === 'add_label' ? 'add' : 'remove', step.label_ids, run.origin);
        return { result: { conversation_id: conversationId, label_ids: step.label_ids } };
      }
      case 'assign_seller': {
        const leadId = numberAt(context.trigger, 'lead_id');
        if (leadId === undefined) throw new StepError('no_lead', 'The trigger names no lead');
        const { created } = await deps.assignSeller(run.entityId, leadId, step.employee_id);
        return { result: { lead_id: leadId, employee_id: step.employee_id, created } };
      }
      case 'wait':
        return { result: { seconds: step.seconds }, delaySeconds: step.seconds };
      case 'webhook': {
        const { status } = await deps.callWebhook({
          url: step.url,
          method: step.method ?? 'POST',
          headers: step.headers ?? {},
          body: { workflow_id: run.workflowId, execution_id: run.executionId, step_key: step.key, context },
          idempotencyKey: run.idempotencyKey,
        });
        return { result: { status } };
      }
      case 'condition': {
        const holds = compileFilters(step.filters as FilterNode[], { caseInsensitive: caseInsensitiveFields(run.event) })(context);
        return { result: { holds }, next: holds ? step.then : step.else };
      }
    }
  }

  return { perform };
}

/** What `step` would do in `context`, with its texts rendered; performs nothing. */
export function preview(step: Step, context: ExecutionContext, event: TriggerEvent): ActionOutcome {
  switch (step.action) {
    case 'send_text':
      return { result: { send: { kind: 'text', body: renderText(step.text, context) }, conversation: conversationRef(context.trigger) ?? null } };
    case 'send_template':
      return { result: { send: { kind: 'template', body: renderDeep(step.template, context) }, conversation: conversationRef(context.trigger) ?? null } };
    case 'add_note':
      return { result: { note: renderText(step.text, context), conversation: conversationRef(context.trigger) ?? null } };
    case 'add_label':
    case 'remove_label':
      return {
        result: { [step.action === 'add_label' ? 'add_labels' : 'remove_labels']: step.label_ids, conversation: conversationRef(context.trigger) ?? null },
      };
    case 'condition': {
      const holds = compileFilters(step.filters as FilterNode[], { caseInsensitive: caseInsensitiveFields(event) })(context);
      return { result: { holds }, next: holds ? step.then : step.else };
    }
    case 'wait':
      return { result: { wait_seconds: step.seconds }, delaySeconds: step.seconds };
    case 'webhook':
      return { result: { call: { method: step.method ?? 'POST', url: step.url } } };
    default: {
      const { key: _key, action: _action, ...rest } = step as Step & { next?: unknown };
      delete (rest as { next?: unknown }).next;
      return { result: rest };
    }
  }
}

/** A step failure that retrying cannot fix, with its code. */
class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StepError';
  }
}

/** Classifies an action's error: our services' problems (400, 404, 422) and refused addresses are permanent; the rest may pass on retry. */
export function describeFailure(err: unknown): StepFailure {
  if (err instanceof StepError) return { code: err.code, message: err.message, retryable: false };
  if (err instanceof AppError) return { code: err.code, message: err.message, retryable: err.status >= 500, status: err.status };
  if (err instanceof WebhookError)
    return { code: err.code, message: err.message, retryable: err.retryable, ...(err.status !== undefined ? { status: err.status } : {}) };
  return { code: 'internal_error', message: err instanceof Error ? err.message : String(err), retryable: !isPermanentFailure(err) };
}

/** The conversation a trigger names: its id, its chat (message.inbound), or its contact's latest. */
export function conversationRef(trigger: Record<string, unknown>): ConversationRef | undefined {
  const conversationId = numberAt(trigger, 'conversation_id');
  if (conversationId !== undefined) return { conversationId };
  const account = numberAt(trigger, 'entity_channel_account_id');
  if (account !== undefined && typeof trigger.external_chat_id === 'string')
    return { entityChannelAccountId: account, externalChatId: trigger.external_chat_id };
  const contactId = numberAt(trigger, 'contact_id');
  return contactId !== undefined ? { contactId } : undefined;
}

function numberAt(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key];
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}
