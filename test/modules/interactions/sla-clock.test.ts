/**
 * The SLA clock rules (service-levels/sla-clock.ts) as pure functions: a cycle's clocks, a pause that keeps the
 * business minutes left across a night, the next response's first unanswered message, the timers a change
 * needs, and `sla_status` over time.
 */
import { describe, expect, it } from 'vitest';
import {
  agentResponded,
  customerWrote,
  openCycle,
  slaStatusOf,
  statusChanged,
  timersToSchedule,
  type SlaPolicySnapshot,
} from '../../../src/modules/interactions/service-levels/sla-clock.js';

const weekdays = [1, 2, 3, 4, 5].map((day) => ({ day, start: '09:00', end: '17:00' }));
const policy: SlaPolicySnapshot = {
  policyId: 7,
  basis: 'business',
  schedule: { timeZone: 'America/New_York', intervals: weekdays, holidays: [] },
  targets: { first_response: 60, next_response: 30, resolution: 480 },
  atRiskShare: 0.5,
  pauseOnPending: true,
  pauseOnSnoozed: false,
};
const at = (iso: string) => new Date(iso);

describe('SLA clocks', () => {
  it('a cycle opened by a customer runs first response and resolution in business minutes', () => {
    // Monday 2025-03-03 16:30 EST (21:30Z): 30 business minutes today, the rest on Tuesday from 09:00.
    const s = openCycle(policy, at('2025-03-03T21:30:00Z'), undefined, true);
    expect(s.clocks.first_response).toMatchObject({ cycle: 2, due: '2025-03-04T14:30:00.000Z', atRisk: '2025-03-03T22:00:00.000Z' });
    expect(s.clocks.resolution).toMatchObject({ cycle: 1, due: '2025-03-04T21:30:00.000Z' });
    expect(s.clocks.next_response).toBeUndefined();
    expect(timersToSchedule(null, s)).toHaveLength(4);
    // Opened again by an agent: the resolution clock only.
    expect(Object.keys(openCycle(policy, at('2025-03-03T21:30:00Z'), s, false).clocks)).toEqual(['resolution']);
  });

  it('pending pauses with the business minutes left; opening again resumes from them, snoozed does not pause here', () => {
    const s = openCycle(policy, at('2025-03-03T14:00:00Z'), undefined, true); // Monday 09:00 EST
    const paused = statusChanged(s, 'pending', at('2025-03-03T14:20:00Z'));
    expect(paused.paused).toBe(true);
    expect(paused.clocks.first_response).toMatchObject({ due: null, remaining: 40 });
    expect(timersToSchedule(s, paused)).toEqual([]);
    // Resumed Tuesday 10:00 EST: 40 minutes later.
    const resumed = statusChanged(paused, 'open', at('2025-03-04T15:00:00Z'));
    expect(resumed.clocks.first_response).toMatchObject({ due: '2025-03-04T15:40:00.000Z', remaining: null, cycle: s.clocks.first_response!.cycle });
    expect(
      timersToSchedule(paused, resumed)
        .map((t) => `${t.metric}:${t.kind}`)
        .sort(),
    ).toEqual(['first_response:at_risk', 'first_response:breach', 'resolution:at_risk', 'resolution:breach']);
    expect(statusChanged(resumed, 'snoozed', at('2025-03-04T15:10:00Z'))).toBe(resumed);
  });

  it('the next response runs from the first unanswered message; an answer stops it; resolving stops all', () => {
    let s = agentResponded(openCycle(policy, at('2025-03-03T14:00:00Z'), undefined, true));
    expect(s.clocks.first_response).toBeUndefined();
    expect(agentResponded(s)).toBe(s);
    s = customerWrote(s, at('2025-03-03T15:00:00Z'));
    const due = s.clocks.next_response!.due;
    expect(due).toBe('2025-03-03T15:30:00.000Z');
    expect(customerWrote(s, at('2025-03-03T15:10:00Z')).clocks.next_response!.due).toBe(due);
    expect(agentResponded(s).clocks.next_response).toBeUndefined();
    expect(statusChanged(s, 'resolved', at('2025-03-03T15:20:00Z')).clocks).toEqual({});
  });

  it('sla_status: on_track, at_risk past the share, breached past due or once recorded; null without a policy', () => {
    const s = openCycle({ ...policy, basis: 'calendar' }, at('2025-03-03T14:00:00Z'), undefined, true);
    expect(slaStatusOf(null, at('2025-03-03T14:00:00Z'))).toBeNull();
    expect(slaStatusOf(s, at('2025-03-03T14:10:00Z'))).toBe('on_track');
    expect(slaStatusOf(s, at('2025-03-03T14:30:00Z'))).toBe('at_risk');
    expect(slaStatusOf(s, at('2025-03-03T15:00:00Z'))).toBe('breached');
    expect(slaStatusOf({ ...agentResponded(s), breached: true }, at('2025-03-03T14:01:00Z'))).toBe('breached');
  });
});
