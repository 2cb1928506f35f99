/**
 * Workflows (SPEC "Workflow trigger record", "Events"): triggers of events, filters and presets; durable
 * executions whose steps run as jobs; schedules; manual runs. The module hears events as a durable
 * consumer (`<event>:workflows` queues, enqueued in the publisher's transaction) and acts through the
 * interactions and records services only; triggers read `erp.*` fields from the invoices module and `labels` from
 * interactions (a conversation's) and records (a lead's); label ids are checked against the labels catalogue when saved.
 */
import type { FastifyInstance } from 'fastify';
import { Counter } from 'prom-client';
import type { AppContext } from '../../platform/context.js';
import type { ConversationAutomation } from '../interactions/index.js';
import type { IdentityService } from '../identity/index.js';
import type { InvoicesModule } from '../invoices/index.js';
import type { Labels } from '../labels/index.js';
import { createErpFieldsReader } from './erp-fields.js';
import { createLabelFieldsReader } from './label-fields.js';
import { createContactPlacement, createLeadPlacement, createRecordLookup, type RecordsModule } from '../records/index.js';
import { createExecutionService, SCHEDULE_QUEUE, STEP_QUEUE } from './execution.service.js';
import { createWorkflowService } from './workflow.service.js';
import { createTriggerMatcher } from './trigger-matcher.js';
import { createWebhookCaller } from './outbound-webhook.js';
import { SUBSCRIBED_EVENTS, TRIGGER_CONTEXTS, type SubscribedEvent } from './trigger-context.js';
import { workflowRoutes } from './workflow.routes.js';
import { entitiesWithTriggers } from './workflow.repository.js';
import type { DomainEventMap } from '../../platform/events/bus.js';
import { attemptExpiryAfterCall } from '../../platform/queue/queue.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';

/** The durable consumer name of this module on the event bus. */
const WORKFLOWS_CONSUMER = 'workflows';

/**
 * Registers `/api/workflows/*`, the durable event consumers and, with `workers`, the step worker and
 * the minute schedule tick. `now` is the clock of schedules and executions (tests inject one).
 */
export async function registerWorkflowsModule(
  app: FastifyInstance,
  ctx: AppContext,
  deps: {
    conversations: ConversationAutomation;
    records: RecordsModule;
    identity: Pick<IdentityService, 'timeZoneOf'>;
    invoices: Pick<InvoicesModule, 'recentTotals'>;
    labels: Pick<Labels, 'unknownLabels'>;
  },
  options: { workers: boolean; now?: (() => Date) | undefined },
): Promise<void> {
  const now = options.now ?? (() => new Date());
  const loopStopped = new Counter({
    name: 'workflows_loop_stopped_total',
    help: 'Events caused by workflows that started nothing because they reached WORKFLOWS_MAX_DEPTH',
    labelNames: ['event'] as const,
    registers: [],
  });
  const executionsStarted = new Counter({
    name: 'workflows_executions_started_total',
    help: 'Workflow executions started, by trigger type',
    labelNames: ['trigger_type'] as const,
    registers: [],
  });
  app.metrics.registerMetric(loopStopped);
  app.metrics.registerMetric(executionsStarted);
  const groupExists = createRecordLookup(ctx.db);
  const timeZoneOf = (entityId: number) => deps.identity.timeZoneOf(entityId);
  const executions = createExecutionService({
    db: ctx.db,
    queue: ctx.queue,
    matcher: createTriggerMatcher({ db: ctx.db }),
    actions: {
      conversations: deps.conversations,
      assignSeller: async (entityId, leadId, employeeId) => ({
        created: (await deps.records.assignments.assignLead({ entityId, employeeId: null }, { lead_id: leadId, employee_id: employeeId })).created,
      }),
      callWebhook: createWebhookCaller({
        timeoutMs: ctx.config.workflows.webhookTimeoutMs,
        allowedAddresses: ctx.config.workflows.webhookAllowedAddresses,
        caFile: ctx.config.workflows.webhookCaFile,
      }),
    },
    log: ctx.log,
    now,
    maxDepth: ctx.config.workflows.maxDepth,
    timeZoneOf,
    placement: {
      contact: createContactPlacement(ctx.db),
      lead: createLeadPlacement(ctx.db),
      groupExists: (entityId, groupId) => groupExists('group', entityId, groupId),
    },
    metrics: { loopStopped, executionsStarted },
    erpFields: createErpFieldsReader({ invoices: deps.invoices, log: ctx.log, timeoutMs: ctx.config.workflows.erpFieldsTimeoutMs, ttlMs: 5 * 60_000 }),
    labelFields: createLabelFieldsReader({
      conversations: deps.conversations,
      leadLabels: async (leadId) => (await deps.records.labels.labelIdsOf('lead', [leadId])).get(leadId) ?? [],
    }),
  });
  const workflows = createWorkflowService({
    db: ctx.db,
    nextRunAt: (filters, entityId, zone) => executions.nextRunAt(filters, entityId, zone),
    timeZoneOf,
    webhookAllowedAddresses: ctx.config.workflows.webhookAllowedAddresses,
    labels: deps.labels,
  });

  // A step's longest action is one webhook call; a lost attempt goes to another worker (same idempotency key).
  const expireInSeconds = attemptExpiryAfterCall(ctx.config.workflows.webhookTimeoutMs);
  await ctx.queue.define(STEP_QUEUE, { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds, policy: 'short' });
  await ctx.queue.define(SCHEDULE_QUEUE, { retryLimit: 2, retryDelay: 10, expireInSeconds: 120 });
  for (const event of SUBSCRIBED_EVENTS) await subscribe(event);
  if (options.workers) {
    await ctx.queue.work(STEP_QUEUE, (data, job) => executions.runStep(data, job), { concurrency: 8, pollingIntervalSeconds: 1 });
    await ctx.queue.work(SCHEDULE_QUEUE, async () => void (await executions.fireDueSchedules()));
    await ctx.queue.schedule(SCHEDULE_QUEUE, '* * * * *', {}, { tz: 'UTC' });
  }
  await registerRoutes(app, workflowRoutes, { prefix: '/api/workflows', workflows, executions });

  async function subscribe<K extends SubscribedEvent>(event: K): Promise<void> {
    await ctx.events.subscribeDurably(
      event,
      WORKFLOWS_CONSUMER,
      async (payload: DomainEventMap[K], job) => {
        const { context, origin } = TRIGGER_CONTEXTS[event](payload);
        await executions.startFromEvent(event, context, job.id, origin);
      },
      {
        // Starting executions reads the ERP at most once (bounded) and writes rows keyed by the job: an
        // attempt lost with its process is taken over after three ERP timeouts, and a repeat starts nothing twice.
        policy: { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: attemptExpiryAfterCall(ctx.config.workflows.erpFieldsTimeoutMs) },
        // A job is created with a wake of a local worker; polling only finds retries (and jobs of instances without workers).
        work: { concurrency: 2, pollingIntervalSeconds: 5 },
        // Only events of entities with an enabled workflow for them get a job (read in the publisher's transaction).
        interest: async (tx, payloads) => {
          const entityIds = payloads.map((p) => TRIGGER_CONTEXTS[event](p).context.entity_id);
          const wanted = await entitiesWithTriggers(tx, event, entityIds);
          return entityIds.map((id) => wanted.has(id));
        },
      },
    );
  }
}
