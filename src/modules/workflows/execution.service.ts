/**
 * Workflow executions: starting them (from events, schedule slots and manual runs), running their steps
 * as `workflows.step` jobs, and the run history.
 *
 * - Starting is idempotent: an execution is unique per `(workflow, dedup_key)` (the event's durable job,
 *   the slot, the manual request), and its first step job is enqueued in the same transaction.
 * - A step job records its visit, performs the action (idempotent per visit, workflow.actions.ts), then in
 *   one transaction ends the visit and enqueues the next step (after a wait's delay) or ends the
 *   execution. A crash at any point re-runs at most the current step, whose effect happens once.
 * - Errors an action may outgrow (network, 5xx, database) are retried with backoff; the rest, or the
 *   last attempt, fail the step and the execution with the error in the history.
 * - Loop protection: an event caused by a workflow (its `origin`) starts executions one level deeper;
 *   at `maxDepth` it starts none. A single execution stops after `MAX_STEP_VISITS` step visits.
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Counter } from 'prom-client';
import type { Db } from '../../db/client.js';
import { conflict, notFound, validationFailed } from '../../platform/errors.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { type JobContext, type Queue } from '../../platform/queue/queue.js';
import { transaction, type UnitOfWork } from '../../platform/transactions/transaction.js';
import type { EventOrigin } from '../interactions/index.js';
import { compileFilters } from './filter-engine.js';
import { caseInsensitiveFields, type TriggerEvent } from './field-registry.js';
import { followingStep, type Definition } from './workflow.definition.js';
import { createActions, describeFailure, preview, type ActionDeps, type ExecutionContext } from './workflow.actions.js';
import { nextSlot, scheduleOf, slotAt } from './schedule.js';
import { namesErpField, namesLabelsField, type ContextReads, type TriggerMatcher } from './trigger-matcher.js';
import type { TriggerContext } from './trigger-context.js';
import type { ErpFields, ErpFieldsReader } from './erp-fields.js';
import type { LabelFieldsReader } from './label-fields.js';
import * as repo from './workflow.repository.js';
import type { ExecuteBody, ExecutionListQuery, ExecutionResponse } from './workflow.schemas.js';

export const STEP_QUEUE = 'workflows.step';
export const SCHEDULE_QUEUE = 'workflows.schedule-tick';

declare module '../../platform/queue/queue.js' {
  interface JobMap {
    'workflows.step': { executionId: number; stepKey: string; visit: number };
    'workflows.schedule-tick': Record<string, never>;
  }
}

/** Step visits one execution may make (loops through conditions end here). */
const MAX_STEP_VISITS = 100;
/** A slot found later than this after its time (the service was down) is skipped, not run late. */
const SCHEDULE_GRACE_MS = 15 * 60 * 1000;

export interface ExecutionServiceDeps {
  db: Db;
  queue: Queue;
  matcher: TriggerMatcher;
  actions: ActionDeps;
  log: FastifyBaseLogger;
  now: () => Date;
  maxDepth: number;
  /** The entity's IANA time zone (identity): scheduled workflows without a `timezone` run in it (SPEC). */
  timeZoneOf(entityId: number): Promise<string>;
  /** Lead and group of a contact, and group of a lead, in the entity (records). */
  placement: {
    contact(entityId: number, contactId: number): Promise<{ contactId: number; leadId: number; groupId: number } | undefined>;
    lead(entityId: number, leadId: number): Promise<{ leadId: number; groupId: number } | undefined>;
    groupExists(entityId: number, groupId: number): Promise<boolean>;
  };
  metrics: { loopStopped: Counter<'event'>; executionsStarted: Counter<'trigger_type'> };
  /** `erp.*` fields of message.inbound and manual contexts (bounded wait; undefined when absent). */
  erpFields: ErpFieldsReader;
  /** The `labels` field of contexts about a conversation or a lead (undefined when it names none). */
  labelFields: LabelFieldsReader;
}

export function createExecutionService(deps: ExecutionServiceDeps) {
  const { db } = deps;
  const definitions = new LRUCache<string, Definition>({ max: 2000 });
  const actions = createActions(deps.actions);

  /** Versions never change once written: cached. Inside a transaction pass it as `via` (PGlite is one session). */
  async function definitionOf(workflowId: number, version: number, via: Db = db): Promise<Definition | undefined> {
    const key = `${workflowId}:${version}`;
    let d = definitions.get(key);
    if (!d) {
      d = (await repo.versionDefinition(via, workflowId, version)) as Definition | undefined;
      if (d) definitions.set(key, d);
    }
    return d;
  }

  /** Inserts the execution and enqueues its first step in `unit`; undefined when `dedupKey` already ran. */
  async function begin(
    unit: UnitOfWork,
    start: {
      entityId: number;
      workflowId: number;
      version: number;
      triggerType: TriggerEvent;
      trigger: Record<string, unknown>;
      erp?: ErpFields | undefined;
      labels?: number[] | undefined;
      depth: number;
      dedupKey: string;
    },
  ) {
    const definition = await definitionOf(start.workflowId, start.version, unit.tx);
    const first = definition?.steps[0];
    if (!first) return undefined;
    const context: ExecutionContext = {
      trigger: start.trigger,
      workflow: { id: start.workflowId, version: start.version, step_visits: {} },
      ...(start.erp ? { erp: start.erp } : {}),
      ...(start.labels ? { labels: start.labels } : {}),
    };
    const row = await repo.insertExecution(unit.tx, {
      entityId: start.entityId,
      workflowId: start.workflowId,
      workflowVersion: start.version,
      triggerType: start.triggerType,
      contextJson: context,
      depth: start.depth,
      dedupKey: start.dedupKey,
      startedAt: deps.now(),
    });
    if (!row) return undefined;
    await deps.queue.enqueue(unit, STEP_QUEUE, { executionId: row.id, stepKey: first.key, visit: 1 }, { singletonKey: `${row.id}:${first.key}:1` });
    deps.metrics.executionsStarted.inc({ trigger_type: start.triggerType });
    return row;
  }

  /** Ends a step visit and moves on, in one transaction. */
  async function advance(
    exec: repo.ExecutionRow,
    stepRowId: number,
    context: ExecutionContext,
    result: unknown,
    next: string | null,
    delaySeconds: number | undefined,
  ): Promise<void> {
    await transaction(db, async (unit) => {
      const { tx } = unit;
      if (!(await repo.finishStep(tx, stepRowId, { status: 'succeeded', result }))) return;
      if (next === null) return repo.updateExecution(tx, exec.id, { status: 'succeeded', contextJson: context, finishedAt: deps.now() });
      const total = Object.values(context.workflow.step_visits).reduce((a, b) => a + b, 0);
      if (total >= MAX_STEP_VISITS) {
        return repo.updateExecution(tx, exec.id, {
          status: 'failed',
          contextJson: context,
          finishedAt: deps.now(),
          error: { code: 'step_limit_exceeded', message: `the execution made ${total} step visits (limit ${MAX_STEP_VISITS})` },
        });
      }
      const visit = (context.workflow.step_visits[next] ?? 0) + 1;
      await repo.updateExecution(tx, exec.id, { contextJson: context });
      await deps.queue.enqueue(
        unit,
        STEP_QUEUE,
        { executionId: exec.id, stepKey: next, visit },
        { singletonKey: `${exec.id}:${next}:${visit}`, ...(delaySeconds ? { startAfter: delaySeconds } : {}) },
      );
    });
  }

  async function failStep(
    exec: repo.ExecutionRow,
    stepRowId: number | undefined,
    stepKey: string,
    context: ExecutionContext,
    error: Record<string, unknown>,
  ): Promise<void> {
    await transaction(db, async ({ tx }) => {
      if (stepRowId !== undefined && !(await repo.finishStep(tx, stepRowId, { status: 'failed', error }))) return;
      await repo.updateExecution(tx, exec.id, { status: 'failed', contextJson: context, finishedAt: deps.now(), error: { step_key: stepKey, ...error } });
    });
  }

  /** The `workflows.step` job: one visit of one step. */
  async function runStep(data: { executionId: number; stepKey: string; visit: number }, job: JobContext): Promise<void> {
    const exec = await repo.getExecution(db, data.executionId);
    if (!exec || exec.status !== 'running') return;
    const definition = await definitionOf(exec.workflowId, exec.workflowVersion);
    const step = definition?.steps.find((s) => s.key === data.stepKey);
    const stored = exec.contextJson as ExecutionContext;
    const context: ExecutionContext = {
      ...stored,
      workflow: { ...stored.workflow, step_visits: { ...stored.workflow.step_visits, [data.stepKey]: data.visit } },
    };
    if (!definition || !step)
      return failStep(exec, undefined, data.stepKey, context, { code: 'step_missing', message: `version ${exec.workflowVersion} has no step ${data.stepKey}` });
    const visitRow = await repo.beginStep(db, { entityId: exec.entityId, executionId: exec.id, stepKey: step.key, visit: data.visit, action: step.action });
    if (visitRow.status !== 'running') return; // delivered again after it ended
    const origin: EventOrigin = { workflowId: exec.workflowId, executionId: exec.id, depth: exec.depth };
    let outcome;
    try {
      // A condition naming `labels` reads them as they are now: a wait or a label step before it may have changed them.
      if (step.action === 'condition' && namesLabelsField(step.filters)) {
        const labels = await deps.labelFields(exec.triggerType as TriggerEvent, context.trigger);
        if (labels) context.labels = labels;
        else delete context.labels;
      }
      outcome = await actions.perform(step, context, {
        entityId: exec.entityId,
        workflowId: exec.workflowId,
        executionId: exec.id,
        event: exec.triggerType as TriggerEvent,
        idempotencyKey: `wf:${exec.id}:${step.key}:${data.visit}`,
        origin,
      });
    } catch (err) {
      const failure = describeFailure(err);
      if (failure.retryable && job.attempt <= job.retryLimit) {
        await repo.noteStepError(db, visitRow.id, { ...failure, attempt: job.attempt });
        throw err;
      }
      deps.log.warn({ executionId: exec.id, step: step.key, failure }, 'workflow step failed');
      return failStep(exec, visitRow.id, step.key, context, { ...failure, attempts: visitRow.attempts });
    }
    const next = outcome.next !== undefined ? outcome.next : 'next' in step && step.next !== undefined ? step.next : followingStep(definition.steps, step.key);
    await advance(exec, visitRow.id, context, outcome.result, next, outcome.delaySeconds);
  }

  return {
    runStep,

    /** Starts the executions an event matches (a durable event job: `jobId` is the same on every delivery). */
    async startFromEvent(event: TriggerEvent, trigger: TriggerContext, jobId: string, origin: EventOrigin | undefined): Promise<number> {
      const depth = origin ? origin.depth + 1 : 0;
      // The ERP is asked (bounded, cached) only when a trigger filter or a matched workflow's step names `erp.*`;
      // labels only when a trigger filter names them (a condition reads them again when it runs).
      let erp: ErpFields | undefined;
      let erpRead = false;
      let labels: number[] | undefined;
      const readErp = async () => {
        erpRead = true;
        erp = event === 'message.inbound' ? await deps.erpFields.of(trigger.entity_id, trigger.group_id as number | null | undefined) : undefined;
      };
      const readExtra = async (reads: ContextReads) => {
        if (reads.erp) await readErp();
        if (reads.labels) labels = await deps.labelFields(event, trigger);
        return { ...(erp ? { erp } : {}), ...(labels ? { labels } : {}) };
      };
      const matched = await deps.matcher.match(trigger.entity_id, event, trigger, readExtra);
      if (!erpRead && event === 'message.inbound') {
        for (const m of matched) {
          if (namesErpField((await definitionOf(m.workflowId, m.version))?.steps)) {
            await readErp();
            break;
          }
        }
      }
      if (matched.length === 0) return 0;
      if (depth >= deps.maxDepth) {
        deps.metrics.loopStopped.inc({ event });
        deps.log.warn(
          { event, origin, workflows: matched.map((m) => m.workflowId) },
          'workflow loop stopped: the event was caused by workflows at the depth limit',
        );
        return 0;
      }
      let started = 0;
      await transaction(db, async (unit) => {
        for (const m of matched) {
          const row = await begin(unit, {
            entityId: trigger.entity_id,
            workflowId: m.workflowId,
            version: m.version,
            triggerType: event,
            trigger,
            erp,
            labels,
            depth,
            dedupKey: `${event}:${jobId}`,
          });
          if (row) started++;
        }
      });
      return started;
    },

    /** POST /api/workflows/:id/execute (SPEC manual context). 404, 409 `workflow_disabled`, 400 for records of another entity. */
    async executeManually(p: Principal, workflowId: number, body: ExecuteBody, requestKey: string): Promise<ExecutionResponse> {
      const wf = await repo.findWorkflow(db, p.entityId, workflowId);
      if (!wf) throw notFound('workflow', workflowId);
      if (!wf.workflow.enabled) throw conflict('workflow_disabled', 'The workflow is disabled: enable it to run it');
      const records = await manualRecords(p.entityId, body);
      const trigger = {
        type: 'manual',
        entity_id: p.entityId,
        triggered_by_employee_id: p.employeeId,
        triggered_by_user_id: p.userId,
        contact_id: records.contactId,
        lead_id: records.leadId,
        group_id: records.groupId,
        triggered_at: deps.now().toISOString(),
      };
      // Read before the transaction (the bounded ERP wait holds no connection), and only when a step names them.
      const erp = namesErpField((wf.definition as Definition).steps) ? await deps.erpFields.of(p.entityId, records.groupId) : undefined;
      const row = await transaction(db, (unit) =>
        begin(unit, {
          entityId: p.entityId,
          workflowId,
          version: wf.workflow.version,
          triggerType: 'manual',
          trigger,
          erp,
          depth: 0,
          dedupKey: `manual:${requestKey}`,
        }),
      );
      if (!row) throw conflict('execution_exists', 'This request already started an execution (same Idempotency-Key)');
      return toExecutionResponse(row);
    },

    /**
     * The `workflows.schedule-tick` job (every minute): starts one execution per due slot of each
     * enabled scheduled workflow and moves its `next_run_at` on. Slots more than `SCHEDULE_GRACE_MS`
     * late are skipped. Returns the executions started.
     */
    async fireDueSchedules(): Promise<number> {
      let started = 0;
      for (;;) {
        const now = deps.now();
        const due = await repo.dueSchedules(db, now, 50);
        // Zones are read before the transactions (the embedded database is one session).
        const zones = new Map<number, string>();
        for (const entityId of new Set(due.map((d) => d.entityId))) zones.set(entityId, await deps.timeZoneOf(entityId));
        for (const { id } of due) {
          await transaction(db, async (unit) => {
            const { tx } = unit;
            const locked = await repo.lockDueSchedule(tx, id, now);
            if (!locked) return; // another instance took it, or it moved on
            const { trigger: t, version } = locked;
            const schedule = scheduleOf(t.filters as never, zones.get(t.entityId)!);
            const slotTime = t.nextRunAt!;
            if (now.getTime() - slotTime.getTime() <= SCHEDULE_GRACE_MS) {
              const slot = slotAt(schedule, slotTime, t.entityId);
              const row = await begin(unit, {
                entityId: t.entityId,
                workflowId: t.workflowId,
                version,
                triggerType: 'scheduled',
                trigger: slot.context,
                depth: 0,
                dedupKey: `scheduled:${slotTime.toISOString()}`,
              });
              if (row) started++;
            } else {
              deps.log.warn({ workflowId: t.workflowId, slot: slotTime.toISOString() }, 'scheduled slot skipped: found too late');
            }
            await repo.setNextRunAt(tx, t.id, nextSlot(schedule, now, t.entityId)?.at ?? null);
          });
        }
        if (due.length < 50) return started;
      }
    },

    async list(p: Principal, workflowId: number, q: ExecutionListQuery) {
      if (!(await repo.findWorkflow(db, p.entityId, workflowId))) throw notFound('workflow', workflowId);
      const { rows, total } = await repo.listExecutions(db, p.entityId, workflowId, q);
      return { data: rows.map((r) => toExecutionResponse(r)), pagination: { limit: q.limit, offset: q.offset, total } };
    },

    async get(p: Principal, workflowId: number, executionId: number): Promise<ExecutionResponse> {
      const row = await repo.findExecution(db, p.entityId, workflowId, executionId);
      if (!row) throw notFound('execution', executionId);
      return toExecutionResponse(row, await repo.stepsOf(db, [row.id]));
    },

    /** Walks the current version against a sample context without performing anything (waits end the walk). */
    async dryRun(p: Principal, workflowId: number, sample: Record<string, unknown>) {
      const wf = await repo.findWorkflow(db, p.entityId, workflowId);
      if (!wf) throw notFound('workflow', workflowId);
      const definition = wf.definition as Definition;
      const event = definition.trigger.trigger_type;
      const trigger = (typeof sample.trigger === 'object' && sample.trigger !== null ? sample.trigger : {}) as Record<string, unknown>;
      const matched =
        event === 'manual' || event === 'scheduled'
          ? true
          : compileFilters(definition.trigger.filters, { caseInsensitive: caseInsensitiveFields(event) })({ ...sample, trigger });
      const context: ExecutionContext = { ...sample, trigger, workflow: { id: workflowId, version: wf.workflow.version, step_visits: {} } };
      const steps: { step_key: string; action: string; would: unknown }[] = [];
      let key: string | null = definition.steps[0]?.key ?? null;
      let stoppedBy: string | undefined;
      while (key !== null) {
        const step = definition.steps.find((s) => s.key === key)!;
        context.workflow.step_visits[key] = (context.workflow.step_visits[key] ?? 0) + 1;
        if (steps.length >= MAX_STEP_VISITS) {
          stoppedBy = 'step_limit_exceeded';
          break;
        }
        const outcome = preview(step, context, event);
        steps.push({ step_key: step.key, action: step.action, would: outcome.result });
        key = outcome.next !== undefined ? outcome.next : 'next' in step && step.next !== undefined ? step.next : followingStep(definition.steps, step.key);
      }
      return { matched, steps, ...(stoppedBy ? { stopped_by: stoppedBy } : {}) };
    },

    /** The next slot of a scheduled trigger from now, in `zone` when its filters name none (saving and enabling set it). */
    nextRunAt(filters: unknown, entityId: number, zone: string): Date | null {
      return nextSlot(scheduleOf(filters as never, zone), deps.now(), entityId)?.at ?? null;
    },
  };

  async function manualRecords(entityId: number, body: ExecuteBody): Promise<{ contactId: number | null; leadId: number | null; groupId: number | null }> {
    if (body.contact_id != null) {
      const c = await deps.placement.contact(entityId, body.contact_id);
      if (!c) throw validationFailed([{ field: '/body/contact_id', message: `contact ${body.contact_id} not found` }]);
      if (body.lead_id != null && body.lead_id !== c.leadId)
        throw validationFailed([{ field: '/body/lead_id', message: `contact ${c.contactId} belongs to lead ${c.leadId}` }]);
      return c;
    }
    if (body.lead_id != null) {
      const l = await deps.placement.lead(entityId, body.lead_id);
      if (!l) throw validationFailed([{ field: '/body/lead_id', message: `lead ${body.lead_id} not found` }]);
      return { contactId: null, ...l };
    }
    if (body.group_id != null && !(await deps.placement.groupExists(entityId, body.group_id)))
      throw validationFailed([{ field: '/body/group_id', message: `group ${body.group_id} not found` }]);
    return { contactId: null, leadId: null, groupId: body.group_id ?? null };
  }
}

export type ExecutionService = ReturnType<typeof createExecutionService>;

function toExecutionResponse(r: repo.ExecutionRow, steps?: repo.StepRow[]): ExecutionResponse {
  return {
    id: r.id,
    workflow_id: r.workflowId,
    workflow_version: r.workflowVersion,
    trigger_type: r.triggerType,
    status: r.status,
    depth: r.depth,
    context_json: r.contextJson,
    error: r.error ?? null,
    started_at: r.startedAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
    ...(steps
      ? {
          steps: steps.map((s) => ({
            step_key: s.stepKey,
            visit: s.visit,
            action: s.action,
            status: s.status,
            attempts: s.attempts,
            result: s.result ?? null,
            error: s.error ?? null,
            started_at: s.startedAt.toISOString(),
            finished_at: s.finishedAt?.toISOString() ?? null,
          })),
        }
      : {}),
  };
}
