/**
 * The shape of `conversation.sla_state` (issue 31): the conversation's SLA policy, snapshotted when a cycle
 * starts, and one clock per running target. Written only by the service-levels room (`sla-clock.ts` holds the
 * rules); read by the conversation responses for the due instants and `sla_status`.
 */
import type { SlaMetric, SlaTimeBasis } from './interactions.enums.js';

/** One running target. Instants are ISO 8601; `due`/`atRisk` are null while paused, `remaining*` null while running. */
export interface SlaClock {
  /** Number of this due cycle (unique in the conversation): a breach is recorded once per metric and cycle. */
  cycle: number;
  /** When the clock started (ISO). */
  startedAt: string;
  target: number;
  due: string | null;
  atRisk: string | null;
  /** Minutes (of the policy's basis) left until `due` / `atRisk` when the clock was paused. */
  remaining: number | null;
  remainingToRisk: number | null;
  /** The at-risk event went out for this cycle. */
  warned: boolean;
  /** The breach was recorded for this cycle. */
  breached: boolean;
}

export interface SlaState {
  policyId: number;
  basis: SlaTimeBasis;
  /** The business hours the clocks count in (snapshotted with the policy); null: around the clock. */
  schedule: { timeZone: string; intervals: { day: number; start: string; end: string }[]; holidays: string[] } | null;
  targets: { first_response: number | null; next_response: number | null; resolution: number | null };
  atRiskShare: number;
  pauseOnPending: boolean;
  pauseOnSnoozed: boolean;
  /** Clocks are paused (pending or snoozed under a policy that pauses them). */
  paused: boolean;
  /** An agent answered the conversation at least once. */
  responded: boolean;
  /** A target of the current cycle (since the conversation was opened or last reopened) was missed. */
  breached: boolean;
  /** The last cycle number given out. */
  lastCycle: number;
  clocks: Partial<Record<SlaMetric, SlaClock>>;
}
