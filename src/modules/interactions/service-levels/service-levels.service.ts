/**
 * Service levels (issue 31): business hours and SLA policies of an entity, the SLA clocks of its
 * conversations, and their timers.
 *
 * The clocks move in the transaction of the change that moves them (a customer's message, an agent's
 * response, a status change: `SlaClocks`), by the rules of `sla-clock.ts`. Every due and at-risk instant they
 * set writes, in that transaction, a durable job (`interactions.conversation.sla_timer`) that starts at the
 * instant on whichever instance polls first. The job locks the conversation and acts only when the clock
 * still has that cycle and that instant, so a reply or a pause leaves the old job nothing to do; a breach is
 * recorded with a unique key (conversation, metric, cycle), so it is recorded and announced once whatever
 * instance or retry runs it.
 */
import type { Static } from 'typebox';
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import { notFound, validationFailed, type FieldError } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import type { Queue } from '../../../platform/queue/queue.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import { changeConversations, type ConversationChange } from '../activity/index.js';
import type { ConversationStatus, SlaMetric, SlaState } from '../model/index.js';
import { isValidTimeZone, parseClock } from './business-time.js';
import { agentResponded, customerWrote, openCycle, statusChanged, timersToSchedule, type SlaPolicySnapshot, type SlaTimer } from './sla-clock.js';
import * as repo from './service-levels.repository.js';
import type { BusinessHoursRow, SlaConversationRow, SlaPolicyRow } from './service-levels.repository.js';
import type {
  BusinessHoursBody,
  BusinessHoursPatch,
  BusinessHoursResponse,
  SlaPolicyBody,
  SlaPolicyPatch,
  SlaPolicyResponse,
} from './service-levels.schemas.js';

const TIMER_QUEUE = 'interactions.conversation.sla_timer';

declare module '../../../platform/queue/queue.js' {
  interface JobMap {
    /** Fires the `kind` instant `at` (ISO) of clock `cycle` of `metric` if the conversation's clock still has it. */
    'interactions.conversation.sla_timer': { conversationId: number; metric: SlaMetric; cycle: number; kind: 'breach' | 'at_risk'; at: string };
  }
}

/** What a fired timer tells: which target, its due instant and the policy behind it. */
export interface SlaAlert {
  kind: 'breach' | 'at_risk';
  metric: SlaMetric;
  cycle: number;
  policyId: number;
  targetMinutes: number;
  basis: SlaState['basis'];
  dueAt: string;
  at: Date;
}

/** Publishes a fired timer (realtime and workflow events) through `change`; handed in at composition. */
export type SlaAnnouncer = (change: ConversationChange, c: SlaConversationRow, alert: SlaAlert) => void;

/** Told, in `change`, that `c` started SLA cycle `state.lastCycle` under policy `state.policyId` at `at`. */
export type SlaCycleListener = (change: ConversationChange, c: SlaConversationRow, state: SlaState, at: Date) => void;

/** The clocks, moved inside the caller's change; each answers the conversation row with its new state. */
export interface SlaClocks {
  /**
   * A customer's message at `at` on `c` (after routing), which was `previous` before the message; `known` is
   * what the caller already read (whether the entity has an active policy), spared a query.
   */
  customerWrote(
    change: ConversationChange,
    c: SlaConversationRow,
    previous: ConversationStatus,
    at: Date,
    known?: { entityHasPolicy: boolean },
  ): Promise<SlaConversationRow>;
  /** An agent's outbound message on `c` at `at` (docs/decisions.md "What counts as a response"). */
  agentResponded(change: ConversationChange, c: SlaConversationRow, at: Date): Promise<SlaConversationRow>;
  /** `c` moved from `previous` to its current status at `at`. */
  statusChanged(change: ConversationChange, c: SlaConversationRow, previous: ConversationStatus, at: Date): Promise<SlaConversationRow>;
}

export interface ServiceLevels {
  clocks: SlaClocks;
  listBusinessHours(p: Principal): Promise<{ data: Static<typeof BusinessHoursResponse>[] }>;
  createBusinessHours(p: Principal, body: Static<typeof BusinessHoursBody>): Promise<Static<typeof BusinessHoursResponse>>;
  updateBusinessHours(p: Principal, id: number, body: Static<typeof BusinessHoursPatch>): Promise<Static<typeof BusinessHoursResponse>>;
  deleteBusinessHours(p: Principal, id: number): Promise<void>;
  listPolicies(p: Principal): Promise<{ data: Static<typeof SlaPolicyResponse>[] }>;
  getPolicy(p: Principal, id: number): Promise<Static<typeof SlaPolicyResponse>>;
  createPolicy(p: Principal, body: Static<typeof SlaPolicyBody>): Promise<Static<typeof SlaPolicyResponse>>;
  updatePolicy(p: Principal, id: number, body: Static<typeof SlaPolicyPatch>): Promise<Static<typeof SlaPolicyResponse>>;
  deletePolicy(p: Principal, id: number): Promise<void>;
  /** Creates the timer queue; runs its worker when `workers`. */
  start(options: { workers: boolean }): Promise<void>;
}

const iso = (d: Date) => d.toISOString();

function toBusinessHoursResponse(r: BusinessHoursRow): Static<typeof BusinessHoursResponse> {
  return {
    id: r.id,
    routing_queue_id: r.routingQueueId,
    time_zone: r.timeZone,
    intervals: r.intervals,
    holidays: r.holidays,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

function toPolicyResponse(r: SlaPolicyRow): Static<typeof SlaPolicyResponse> {
  return {
    id: r.id,
    name: r.name,
    position: r.position,
    lead_id: r.leadId,
    routing_queue_id: r.routingQueueId,
    channel_type_code: r.channelTypeCode,
    first_response_minutes: r.firstResponseMinutes,
    next_response_minutes: r.nextResponseMinutes,
    resolution_minutes: r.resolutionMinutes,
    time_basis: r.timeBasis,
    at_risk_share: r.atRiskShare,
    pause_on_pending: r.pauseOnPending,
    pause_on_snoozed: r.pauseOnSnoozed,
    is_active: r.isActive,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  };
}

/** 400 `validation_failed` for an unknown time zone or an empty interval. */
function checkHours(body: { time_zone?: string | undefined; intervals?: { start: string; end: string }[] | undefined }): void {
  const errors: FieldError[] = [];
  if (body.time_zone !== undefined && !isValidTimeZone(body.time_zone)) errors.push({ field: '/body/time_zone', message: 'not an IANA time zone' });
  (body.intervals ?? []).forEach((i, n) => {
    if (parseClock(i.start) === 1440 || parseClock(i.start) === parseClock(i.end))
      errors.push({ field: `/body/intervals/${n}`, message: 'an interval needs a start before 24:00 and an end other than its start' });
  });
  if (errors.length > 0) throw validationFailed(errors);
}

export function createServiceLevels(deps: {
  db: Db;
  queue: Queue;
  events: EventBus;
  realtime: RealtimeEmitter;
  /** The entity's IANA time zone (identity), the default of new business hours. */
  timeZoneOf: (entityId: number) => Promise<string>;
  /** Whether lead `leadId` belongs to the entity (records). */
  leadExists: (entityId: number, leadId: number) => Promise<boolean>;
  announce: SlaAnnouncer;
  cycleOpened?: SlaCycleListener;
  now?: () => Date;
}): ServiceLevels {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function snapshotFor(tx: Db, c: SlaConversationRow, entityHasPolicy?: boolean): Promise<SlaPolicySnapshot | null> {
    if (!(entityHasPolicy ?? (await repo.hasActivePolicy(tx, c.entityId)))) return null;
    const policy = await repo.policyFor(tx, c);
    if (!policy) return null;
    const hours = policy.timeBasis === 'business' ? await repo.scheduleRowFor(tx, c.entityId, c.queueId) : undefined;
    return {
      policyId: policy.id,
      basis: policy.timeBasis,
      schedule: hours ? { timeZone: hours.timeZone, intervals: hours.intervals, holidays: hours.holidays } : null,
      targets: { first_response: policy.firstResponseMinutes, next_response: policy.nextResponseMinutes, resolution: policy.resolutionMinutes },
      atRiskShare: policy.atRiskShare,
      pauseOnPending: policy.pauseOnPending,
      pauseOnSnoozed: policy.pauseOnSnoozed,
    };
  }

  /** Writes `next` when it differs and schedules the timers of its new instants. */
  async function save(change: ConversationChange, c: SlaConversationRow, next: SlaState | null): Promise<SlaConversationRow> {
    if (next === c.slaState) return c;
    const row = await repo.setSlaState(change.tx, c.id, next);
    if (next !== null && next.lastCycle !== c.slaState?.lastCycle) deps.cycleOpened?.(change, row, next, now());
    for (const t of timersToSchedule(c.slaState, next)) await schedule(change, c.id, t);
    return row;
  }

  async function schedule(change: ConversationChange, conversationId: number, t: SlaTimer): Promise<void> {
    const at = new Date(t.at);
    // The key names the instant: the same instant scheduled twice adds no second job.
    await deps.queue.enqueue(
      change,
      TIMER_QUEUE,
      { conversationId, metric: t.metric, cycle: t.cycle, kind: t.kind, at: t.at },
      { startAfter: at, singletonKey: `sla:${conversationId}:${t.metric}:${t.cycle}:${t.kind}:${at.getTime()}` },
    );
  }

  const clocks: SlaClocks = {
    async customerWrote(change, c, previous, at, known) {
      if (c.slaState === null || previous === 'resolved') {
        const policy = await snapshotFor(change.tx, c, known?.entityHasPolicy);
        return save(change, c, policy === null ? null : openCycle(policy, at, c.slaState ?? undefined, true));
      }
      return save(change, c, customerWrote(c.slaState, at));
    },
    async agentResponded(change, c) {
      if (c.slaState === null) return c;
      return save(change, c, agentResponded(c.slaState));
    },
    async statusChanged(change, c, previous, at) {
      if (previous === 'resolved' && c.status !== 'resolved') {
        // Reopened by an agent: a new cycle, whose policy is chosen again; no customer is waiting for a reply.
        const policy = await snapshotFor(change.tx, c);
        return save(change, c, policy === null ? null : openCycle(policy, at, c.slaState ?? undefined, false));
      }
      if (c.slaState === null) return c;
      return save(change, c, statusChanged(c.slaState, c.status, at));
    },
  };

  /** Runs one timer: acts only when the clock still has this cycle and instant; a breach is recorded once. */
  async function fire(job: { conversationId: number; metric: SlaMetric; cycle: number; kind: 'breach' | 'at_risk'; at: string }): Promise<void> {
    await changeConversations(
      db,
      async (change) => {
        const { tx } = change;
        const c = await repo.lockConversation(tx, job.conversationId);
        const state = c?.slaState;
        const clock = state?.clocks[job.metric];
        if (!c || !state || !clock || clock.cycle !== job.cycle) return;
        const at = now();
        const alert: SlaAlert = {
          kind: job.kind,
          metric: job.metric,
          cycle: job.cycle,
          policyId: state.policyId,
          targetMinutes: clock.target,
          basis: state.basis,
          dueAt: clock.due ?? job.at,
          at,
        };
        if (job.kind === 'at_risk') {
          if (clock.atRisk !== job.at || clock.warned || clock.breached) return;
          const next: SlaState = { ...state, clocks: { ...state.clocks, [job.metric]: { ...clock, warned: true } } };
          deps.announce(change, await repo.setSlaState(tx, c.id, next), alert);
          return;
        }
        if (clock.due !== job.at || clock.breached) return;
        const recorded = await repo.insertBreach(tx, {
          entityId: c.entityId,
          conversationId: c.id,
          metric: job.metric,
          cycle: job.cycle,
          policyId: state.policyId,
          dueAt: new Date(job.at),
          breachedAt: at,
        });
        if (!recorded) return;
        const next: SlaState = { ...state, breached: true, clocks: { ...state.clocks, [job.metric]: { ...clock, breached: true, warned: true } } };
        deps.announce(change, await repo.setSlaState(tx, c.id, next), alert);
      },
      deps,
    );
  }

  async function requireQueue(entityId: number, queueId: number | null | undefined, field: string): Promise<void> {
    if (queueId !== null && queueId !== undefined && !(await repo.queueExists(db, entityId, queueId)))
      throw validationFailed([{ field, message: `routing queue ${queueId} does not exist in this entity` }]);
  }

  async function checkPolicy(p: Principal, merged: { lead_id?: number | null; routing_queue_id?: number | null; channel_type_code?: string | null }) {
    const scopes = [merged.lead_id, merged.routing_queue_id, merged.channel_type_code].filter((v) => v !== null && v !== undefined);
    if (scopes.length > 1)
      throw validationFailed([{ field: '/body', message: 'a policy covers at most one of lead_id, routing_queue_id and channel_type_code' }]);
    await requireQueue(p.entityId, merged.routing_queue_id, '/body/routing_queue_id');
    if (merged.lead_id !== null && merged.lead_id !== undefined && !(await deps.leadExists(p.entityId, merged.lead_id)))
      throw validationFailed([{ field: '/body/lead_id', message: `lead ${merged.lead_id} does not exist in this entity` }]);
  }

  const policyValues = (b: Static<typeof SlaPolicyPatch>) => ({
    ...(b.name !== undefined && { name: b.name }),
    ...(b.position !== undefined && { position: b.position }),
    ...(b.lead_id !== undefined && { leadId: b.lead_id }),
    ...(b.routing_queue_id !== undefined && { routingQueueId: b.routing_queue_id }),
    ...(b.channel_type_code !== undefined && { channelTypeCode: b.channel_type_code }),
    ...(b.first_response_minutes !== undefined && { firstResponseMinutes: b.first_response_minutes }),
    ...(b.next_response_minutes !== undefined && { nextResponseMinutes: b.next_response_minutes }),
    ...(b.resolution_minutes !== undefined && { resolutionMinutes: b.resolution_minutes }),
    ...(b.time_basis !== undefined && { timeBasis: b.time_basis }),
    ...(b.at_risk_share !== undefined && { atRiskShare: b.at_risk_share }),
    ...(b.pause_on_pending !== undefined && { pauseOnPending: b.pause_on_pending }),
    ...(b.pause_on_snoozed !== undefined && { pauseOnSnoozed: b.pause_on_snoozed }),
    ...(b.is_active !== undefined && { isActive: b.is_active }),
  });

  return {
    clocks,
    async listBusinessHours(p) {
      return { data: (await repo.listBusinessHours(db, p.entityId)).map(toBusinessHoursResponse) };
    },
    async createBusinessHours(p, body) {
      checkHours(body);
      await requireQueue(p.entityId, body.routing_queue_id, '/body/routing_queue_id');
      const timeZone = body.time_zone ?? (await deps.timeZoneOf(p.entityId));
      const row = await repo
        .insertBusinessHours(db, {
          entityId: p.entityId,
          routingQueueId: body.routing_queue_id ?? null,
          timeZone,
          intervals: body.intervals,
          holidays: [...new Set(body.holidays ?? [])].sort(),
        })
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505')
            throw validationFailed([{ field: '/body/routing_queue_id', message: 'these business hours exist already: change them instead' }]);
          throw err;
        });
      return toBusinessHoursResponse(row);
    },
    async updateBusinessHours(p, id, body) {
      checkHours(body);
      const row = await repo.updateBusinessHours(db, p.entityId, id, {
        ...(body.time_zone !== undefined && { timeZone: body.time_zone }),
        ...(body.intervals !== undefined && { intervals: body.intervals }),
        ...(body.holidays !== undefined && { holidays: [...new Set(body.holidays)].sort() }),
      });
      if (!row) throw notFound('business hours', id);
      return toBusinessHoursResponse(row);
    },
    async deleteBusinessHours(p, id) {
      if (!(await repo.deleteBusinessHours(db, p.entityId, id))) throw notFound('business hours', id);
    },
    async listPolicies(p) {
      return { data: (await repo.listPolicies(db, p.entityId)).map(toPolicyResponse) };
    },
    async getPolicy(p, id) {
      const row = await repo.findPolicy(db, p.entityId, id);
      if (!row) throw notFound('SLA policy', id);
      return toPolicyResponse(row);
    },
    async createPolicy(p, body) {
      await checkPolicy(p, body);
      return toPolicyResponse(await repo.insertPolicy(db, { ...policyValues(body), name: body.name, entityId: p.entityId }));
    },
    async updatePolicy(p, id, body) {
      const current = await repo.findPolicy(db, p.entityId, id);
      if (!current) throw notFound('SLA policy', id);
      await checkPolicy(p, {
        lead_id: body.lead_id === undefined ? current.leadId : body.lead_id,
        routing_queue_id: body.routing_queue_id === undefined ? current.routingQueueId : body.routing_queue_id,
        channel_type_code: body.channel_type_code === undefined ? current.channelTypeCode : body.channel_type_code,
      });
      const row = await repo.updatePolicy(db, p.entityId, id, policyValues(body));
      if (!row) throw notFound('SLA policy', id);
      return toPolicyResponse(row);
    },
    async deletePolicy(p, id) {
      if (!(await repo.deletePolicy(db, p.entityId, id))) throw notFound('SLA policy', id);
    },
    async start({ workers }) {
      // An attempt is a few statements: one still running after 10 s died with its process, and is run again.
      await deps.queue.define(TIMER_QUEUE, { retryLimit: 5, retryDelay: 1, retryBackoff: true, expireInSeconds: 10, policy: 'short' });
      if (!workers) return;
      // Polled every half second: a timer fires within a second of its instant on an idle instance.
      await deps.queue.work(TIMER_QUEUE, fire, { pollingIntervalSeconds: 0.5, concurrency: 4 });
    },
  };
}
