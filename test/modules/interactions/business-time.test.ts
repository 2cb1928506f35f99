/**
 * Business time (service-levels/business-time.ts) against a brute-force count, minute by minute, of the
 * instants whose local wall-clock time is working time (docs/decisions.md "Business time"): around the
 * daylight-saving gaps and overlaps of America/New_York and Europe/Madrid and America/Guatemala's (2006),
 * with holidays and intervals that cross midnight.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  addBusinessMinutes,
  businessMinutesBetween,
  isBusinessTime,
  type BusinessSchedule,
  type WeeklyInterval,
} from '../../../src/modules/interactions/service-levels/business-time.js';

const MINUTE = 60_000;

/** Instants (UTC) just before a daylight-saving change of each zone; ranges start around them. */
const TRANSITIONS: Record<string, string[]> = {
  'America/New_York': ['2024-03-10T06:59:00Z', '2024-11-03T05:59:00Z'],
  'Europe/Madrid': ['2024-03-31T00:59:00Z', '2024-10-27T00:59:00Z'],
  // Guatemala kept daylight-saving time from 2006-04-30 to 2006-10-01 (midnight changes).
  'America/Guatemala': ['2006-04-30T05:59:00Z', '2006-10-01T04:59:00Z'],
};
const ZONES = Object.keys(TRANSITIONS);

const pad = (n: number) => String(n).padStart(2, '0');
const clock = (m: number) => `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;

/** Minutes of day, biased towards the hours daylight-saving changes touch (00:00–04:00). */
const minuteOfDay = fc.oneof(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 0, max: 240 }), fc.constantFrom(0, 60, 120, 150, 180));

const interval: fc.Arbitrary<WeeklyInterval> = fc
  .record({ day: fc.integer({ min: 1, max: 7 }), start: minuteOfDay, end: fc.oneof(minuteOfDay, fc.constant(1440)) })
  .filter((i) => i.start !== i.end && i.start < 1440)
  .map((i) => ({ day: i.day, start: clock(i.start), end: clock(i.end) }));

function scheduleAround(zone: string, at: number): fc.Arbitrary<BusinessSchedule> {
  const day = DateTime.fromMillis(at, { zone }).startOf('day');
  const holiday = fc.integer({ min: -2, max: 3 }).map((d) => day.plus({ days: d }).toISODate()!);
  return fc.record({
    timeZone: fc.constant(zone),
    intervals: fc.array(interval, { minLength: 1, maxLength: 8 }),
    holidays: fc.uniqueArray(holiday, { maxLength: 2 }),
  });
}

/** Whether the local wall-clock time of minute `m` is working time, read from luxon's local fields only. */
function bruteIsBusiness(s: BusinessSchedule, m: number): boolean {
  const local = DateTime.fromMillis(m, { zone: s.timeZone });
  const t = local.hour * 60 + local.minute;
  const date = local.toISODate()!;
  return s.intervals.some((i) => {
    const start = Number(i.start.slice(0, 2)) * 60 + Number(i.start.slice(3));
    const end = Number(i.end.slice(0, 2)) * 60 + Number(i.end.slice(3));
    const crosses = end <= start;
    if (i.day === local.weekday && !s.holidays.includes(date) && start <= t && t < (crosses ? 1440 : end)) return true;
    if (!crosses || t >= end) return false;
    const prev = local.minus({ days: 1 });
    return i.day === prev.weekday && !s.holidays.includes(prev.toISODate()!);
  });
}

/** The business minutes of [a, b) (whole minutes), each as its start instant. */
function bruteMinutes(s: BusinessSchedule, a: number, b: number): number[] {
  const out: number[] = [];
  for (let m = a; m < b; m += MINUTE) if (bruteIsBusiness(s, m)) out.push(m);
  return out;
}

const caseArb = fc.constantFrom(...ZONES).chain((zone) =>
  fc.constantFrom(...TRANSITIONS[zone]!).chain((iso) => {
    const at = Date.parse(iso);
    return fc.record({
      schedule: scheduleAround(zone, at),
      from: fc.integer({ min: -30 * 60, max: 30 * 60 }).map((d) => at + d * MINUTE),
      length: fc.integer({ min: 0, max: 2 * 24 * 60 }),
    });
  }),
);

describe('business time', () => {
  it('counts the business minutes between two instants as a minute-by-minute count does', () => {
    fc.assert(
      fc.property(caseArb, ({ schedule, from, length }) => {
        const to = from + length * MINUTE;
        expect(businessMinutesBetween(schedule, new Date(from), new Date(to))).toBe(bruteMinutes(schedule, from, to).length);
      }),
      { numRuns: 80 },
    );
  });

  it('finds the instant N business minutes later: the end of the Nth business minute', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 1, max: 2000 }), ({ schedule, from, length }, pick) => {
        const minutes = bruteMinutes(schedule, from, from + length * MINUTE);
        fc.pre(minutes.length > 0);
        const n = 1 + (pick % minutes.length);
        const due = addBusinessMinutes(schedule, new Date(from), n);
        expect(due?.getTime()).toBe(minutes[n - 1]! + MINUTE);
        expect(businessMinutesBetween(schedule, new Date(from), due!)).toBe(n);
      }),
      { numRuns: 80 },
    );
  });

  it('tells business time apart at every minute as the brute force does', () => {
    fc.assert(
      fc.property(caseArb, ({ schedule, from, length }) => {
        const m = from + Math.floor(length / 2) * MINUTE;
        expect(isBusinessTime(schedule, new Date(m))).toBe(bruteIsBusiness(schedule, m));
      }),
      { numRuns: 200 },
    );
  });

  it('handles the spring-forward gap and the fall-back overlap of New York exactly', () => {
    const s: BusinessSchedule = { timeZone: 'America/New_York', intervals: [{ day: 7, start: '01:00', end: '04:00' }], holidays: [] };
    // 2024-03-10 (Sunday): 02:00–03:00 does not exist, so 01:00–04:00 holds two real hours.
    expect(businessMinutesBetween(s, new Date('2024-03-10T00:00:00Z'), new Date('2024-03-11T00:00:00Z'))).toBe(120);
    // 2024-11-03 (Sunday): 01:00–02:00 happens twice, so the same interval holds four real hours.
    expect(businessMinutesBetween(s, new Date('2024-11-03T00:00:00Z'), new Date('2024-11-04T00:00:00Z'))).toBe(240);
    // Starting at 01:00 EDT, 90 business minutes end in the second 01:00 hour (EST): 06:30Z.
    expect(addBusinessMinutes(s, new Date('2024-11-03T05:00:00Z'), 90)?.toISOString()).toBe('2024-11-03T06:30:00.000Z');
  });

  it('runs a night shift across midnight and lets a holiday cancel the shift that starts on it', () => {
    const s: BusinessSchedule = { timeZone: 'Europe/Madrid', intervals: [{ day: 5, start: '22:00', end: '02:00' }], holidays: ['2024-06-14'] };
    // Friday 2024-06-07 22:00 CEST (20:00Z) to Saturday 02:00: four hours.
    expect(businessMinutesBetween(s, new Date('2024-06-07T00:00:00Z'), new Date('2024-06-09T00:00:00Z'))).toBe(240);
    expect(addBusinessMinutes(s, new Date('2024-06-07T12:00:00Z'), 180)?.toISOString()).toBe('2024-06-07T23:00:00.000Z');
    // Friday 2024-06-14 is a holiday: no shift that night; the next starts a week later.
    expect(businessMinutesBetween(s, new Date('2024-06-14T00:00:00Z'), new Date('2024-06-16T00:00:00Z'))).toBe(0);
    expect(addBusinessMinutes(s, new Date('2024-06-14T12:00:00Z'), 1)?.toISOString()).toBe('2024-06-21T20:01:00.000Z');
  });

  it('answers null when no business time ever comes', () => {
    const s: BusinessSchedule = { timeZone: 'America/Guatemala', intervals: [], holidays: [] };
    expect(addBusinessMinutes(s, new Date('2025-01-01T00:00:00Z'), 1)).toBeNull();
    expect(addBusinessMinutes(s, new Date('2025-01-01T00:00:00Z'), 0)?.toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });
});
