/**
 * The rules of a conversation's SLA clocks (issue 31; docs/decisions.md "SLA clocks"), pure: each function
 * takes the state and an instant and answers the next state. The service applies them in the transaction of
 * the change that caused them and schedules a timer for every due and at-risk instant they set.
 *
 * - A new cycle (the conversation's first customer message under a policy, or a resolved one reopened) starts
 *   the resolution clock, and the first-response clock until an agent has answered once, the next-response
 *   clock after that (when a customer reopened it).
 * - A customer's message starts the next-response clock when an agent has answered before and none runs.
 * - An agent's response stops the first- and next-response clocks; resolving stops them all.
 * - Pending and snoozed pause the running clocks when the policy says so: the minutes left are kept, and
 *   the clocks go on from them when the conversation opens again. A clock already past due is not paused.
 */
import type { ConversationStatus, SlaMetric, SlaState, SlaStatus } from '../model/index.js';
import type { SlaClock } from '../model/index.js';
import { addBusinessMinutes, businessMinutesBetween } from './business-time.js';

const MINUTE = 60_000;

/** What a policy contributes to a conversation's state at the start of a cycle. */
export type SlaPolicySnapshot = Omit<SlaState, 'paused' | 'responded' | 'breached' | 'lastCycle' | 'clocks'>;

/** `minutes` of the state's basis after `from`; null when its business hours never reach them. */
function addMinutes(s: SlaState, from: Date, minutes: number): Date | null {
  if (s.basis === 'calendar' || s.schedule === null) return new Date(from.getTime() + minutes * MINUTE);
  return addBusinessMinutes(s.schedule, from, minutes);
}

/** Minutes of the state's basis in [from, to). */
function minutesBetween(s: SlaState, from: Date, to: Date): number {
  if (s.basis === 'calendar' || s.schedule === null) return Math.max(0, (to.getTime() - from.getTime()) / MINUTE);
  return businessMinutesBetween(s.schedule, from, to);
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A fresh clock of `metric` from `at`, or the state unchanged when the policy sets no target for it. */
function start(s: SlaState, metric: SlaMetric, at: Date): SlaState {
  const target = s.targets[metric];
  if (target === null) return s;
  const cycle = s.lastCycle + 1;
  const clock: SlaClock = {
    cycle,
    startedAt: at.toISOString(),
    target,
    due: iso(addMinutes(s, at, target)),
    atRisk: iso(addMinutes(s, at, target * s.atRiskShare)),
    remaining: null,
    remainingToRisk: null,
    warned: false,
    breached: false,
  };
  return { ...s, lastCycle: cycle, clocks: { ...s.clocks, [metric]: clock } };
}

function stop(s: SlaState, ...metrics: SlaMetric[]): SlaState {
  const clocks = { ...s.clocks };
  for (const m of metrics) delete clocks[m];
  return { ...s, clocks };
}

/**
 * A new cycle from `at` under `policy`: the conversation's first customer message, or a resolved one opened
 * again (`previous` its state), by the customer writing (`byCustomer`) or by an agent (resolution clock only).
 */
export function openCycle(policy: SlaPolicySnapshot, at: Date, previous: SlaState | undefined, byCustomer: boolean): SlaState {
  let s: SlaState = {
    ...policy,
    paused: false,
    responded: previous?.responded ?? false,
    breached: false,
    lastCycle: previous?.lastCycle ?? 0,
    clocks: {},
  };
  s = start(s, 'resolution', at);
  return byCustomer ? start(s, s.responded ? 'next_response' : 'first_response', at) : s;
}

/** A customer's message at `at` on a conversation that stayed open (or was pending or snoozed). */
export function customerWrote(s: SlaState, at: Date): SlaState {
  let next = s.paused ? resume(s, at) : s;
  if (next.responded && next.clocks.next_response === undefined) next = start(next, 'next_response', at);
  return next;
}

/** An agent answered at `at`: the response clocks stop. */
export function agentResponded(s: SlaState): SlaState {
  // Nothing to stop and already answered once: the same state, so nothing is written.
  if (s.responded && s.clocks.first_response === undefined && s.clocks.next_response === undefined) return s;
  return { ...stop(s, 'first_response', 'next_response'), responded: true };
}

/** Whether the policy pauses the clocks in `status`. */
function pausesIn(s: SlaState, status: ConversationStatus): boolean {
  return (status === 'pending' && s.pauseOnPending) || (status === 'snoozed' && s.pauseOnSnoozed);
}

function pause(s: SlaState, at: Date): SlaState {
  const clocks: SlaState['clocks'] = {};
  for (const [metric, c] of Object.entries(s.clocks) as [SlaMetric, SlaClock][]) {
    if (c.due === null || Date.parse(c.due) <= at.getTime()) {
      clocks[metric] = c;
      continue;
    }
    const remaining = minutesBetween(s, at, new Date(c.due));
    const remainingToRisk = c.atRisk === null ? 0 : minutesBetween(s, at, new Date(c.atRisk));
    clocks[metric] = { ...c, due: null, atRisk: null, remaining, remainingToRisk };
  }
  return { ...s, paused: true, clocks };
}

function resume(s: SlaState, at: Date): SlaState {
  const clocks: SlaState['clocks'] = {};
  for (const [metric, c] of Object.entries(s.clocks) as [SlaMetric, SlaClock][]) {
    clocks[metric] =
      c.remaining === null
        ? c
        : {
            ...c,
            due: iso(addMinutes(s, at, c.remaining)),
            atRisk: iso(addMinutes(s, at, c.remainingToRisk ?? 0)),
            remaining: null,
            remainingToRisk: null,
          };
  }
  return { ...s, paused: false, clocks };
}

/**
 * The conversation's status moved to `status` at `at`: resolving stops every clock, pending and snoozed pause
 * the clocks (when the policy says so), open resumes them. Reopening a resolved conversation is `openCycle`.
 */
export function statusChanged(s: SlaState, status: ConversationStatus, at: Date): SlaState {
  if (status === 'resolved') return { ...stop(s, 'first_response', 'next_response', 'resolution'), paused: false };
  const shouldPause = pausesIn(s, status);
  if (shouldPause && !s.paused) return pause(s, at);
  if (!shouldPause && s.paused) return resume(s, at);
  return s;
}

/** The due instant of each target (null when it is not running or paused). */
export function dueOf(s: SlaState | null, metric: SlaMetric): string | null {
  return s?.clocks[metric]?.due ?? null;
}

/** `breached` when a target of the current cycle was missed, `at_risk` when a running clock passed its share, else `on_track`; null without a policy. */
export function slaStatusOf(s: SlaState | null, now: Date): SlaStatus | null {
  if (s === null) return null;
  const t = now.getTime();
  const clocks = Object.values(s.clocks);
  if (s.breached || clocks.some((c) => c.breached || (c.due !== null && Date.parse(c.due) <= t))) return 'breached';
  if (clocks.some((c) => c.atRisk !== null && Date.parse(c.atRisk) <= t)) return 'at_risk';
  return 'on_track';
}

/** A timer to schedule: the instant `at` of `kind` for the clock `cycle` of `metric`. */
export interface SlaTimer {
  metric: SlaMetric;
  cycle: number;
  kind: 'breach' | 'at_risk';
  at: string;
}

/** The timers `next` needs that `previous` did not have (a due or at-risk instant that is new or moved). */
export function timersToSchedule(previous: SlaState | null, next: SlaState | null): SlaTimer[] {
  if (next === null) return [];
  const out: SlaTimer[] = [];
  for (const [metric, c] of Object.entries(next.clocks) as [SlaMetric, SlaClock][]) {
    const before = previous?.clocks[metric];
    const same = before !== undefined && before.cycle === c.cycle;
    if (c.due !== null && !c.breached && !(same && before.due === c.due)) out.push({ metric, cycle: c.cycle, kind: 'breach', at: c.due });
    if (c.atRisk !== null && !c.warned && !(same && before.atRisk === c.atRisk)) out.push({ metric, cycle: c.cycle, kind: 'at_risk', at: c.atRisk });
  }
  return out;
}
