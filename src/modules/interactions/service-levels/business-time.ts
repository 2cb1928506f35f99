/**
 * Business time (issue 31; docs/decisions.md "Business time"): which instants are working time under weekly
 * intervals in an IANA time zone and holidays, and two exact calculations on it — the business minutes between
 * two instants, and the instant N business minutes after another. Pure: no clock, no database.
 *
 * An instant is business time when its local wall-clock time in `timeZone` lies in an interval of its local
 * date's weekday (`start` ≤ time < `end`), or in the part after midnight of an interval of the previous date
 * that crosses midnight (`end` ≤ `start`), and the date the interval starts on is not a holiday (a holiday
 * cancels the shifts that start on it). Daylight-saving changes follow from that rule: a skipped hour holds
 * no instant, a repeated hour counts twice (both of its real hours are worked). Offsets come from the zone
 * database through luxon (`IANAZone`), never from a fixed offset.
 */
import { DateTime, IANAZone } from 'luxon';

/** One weekly interval: ISO weekday (1 Monday … 7 Sunday) and local times `HH:MM`; `end` ≤ `start` crosses midnight, `24:00` ends the day. */
export interface WeeklyInterval {
  day: number;
  start: string;
  end: string;
}

/** Working time: weekly intervals in `timeZone`, and holidays as local dates `YYYY-MM-DD`. */
export interface BusinessSchedule {
  timeZone: string;
  intervals: readonly WeeklyInterval[];
  holidays: readonly string[];
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** How far `addBusinessMinutes` looks ahead before answering that the target is never reached. */
const MAX_SEARCH_DAYS = 800;

/** Minutes since midnight of `HH:MM` (`24:00` is 1440). Throws on anything else. */
export function parseClock(text: string): number {
  const m = /^([01]\d|2[0-4]):([0-5]\d)$/.exec(text);
  if (!m || (m[1] === '24' && m[2] !== '00')) throw new RangeError(`Not a time of day: ${text}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Whether `zone` is an IANA time zone the runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/** Days since the epoch of a local date (as if it were UTC), and back. */
const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY;
const isoWeekday = (day: number) => {
  const d = new Date(day * DAY).getUTCDay();
  return d === 0 ? 7 : d;
};

interface Compiled {
  zone: IANAZone;
  /** Per ISO weekday of the date an interval starts on: [start, end) in local minutes, end up to 2880. */
  byWeekday: Map<number, [number, number][]>;
  holidays: Set<number>;
  /** Business instant ranges per local day (days since epoch), memoized. */
  days: Map<number, [number, number][]>;
}

const compiledCache = new WeakMap<BusinessSchedule, Compiled>();

function compile(s: BusinessSchedule): Compiled {
  let c = compiledCache.get(s);
  if (c) return c;
  if (!IANAZone.isValidZone(s.timeZone)) throw new RangeError(`Unknown time zone: ${s.timeZone}`);
  const byWeekday = new Map<number, [number, number][]>();
  for (const i of s.intervals) {
    const start = parseClock(i.start);
    let end = parseClock(i.end);
    if (start === 1440 || end === start) throw new RangeError(`Empty interval ${i.start}-${i.end}`);
    if (end < start) end += 1440;
    const list = byWeekday.get(i.day) ?? [];
    list.push([start, end]);
    byWeekday.set(i.day, list);
  }
  c = { zone: IANAZone.create(s.timeZone), byWeekday, holidays: new Set(s.holidays.map(dayOf)), days: new Map() };
  compiledCache.set(s, c);
  return c;
}

/** Merges overlapping [a, b) ranges (sorted by start). */
function merge(ranges: [number, number][]): [number, number][] {
  ranges.sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else if (r[1] > r[0]) out.push([r[0], r[1]]);
  }
  return out;
}

/** Local wall-clock minutes of local day `day` that are business time: own shifts and the tails of the previous day's. */
function wallRanges(c: Compiled, day: number): [number, number][] {
  const ranges: [number, number][] = [];
  if (!c.holidays.has(day)) for (const [a, b] of c.byWeekday.get(isoWeekday(day)) ?? []) ranges.push([a, Math.min(b, 1440)]);
  if (!c.holidays.has(day - 1)) for (const [, b] of c.byWeekday.get(isoWeekday(day - 1)) ?? []) if (b > 1440) ranges.push([0, b - 1440]);
  return merge(ranges);
}

/** The first instant of local day `day` in the zone (a skipped midnight moves to the first instant that exists). */
function startOfDay(c: Compiled, day: number): number {
  const d = new Date(day * DAY);
  return DateTime.fromObject({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }, { zone: c.zone }).toMillis();
}

/** [from, to) split where the zone's offset changes: [start, end, offset minutes]. Transitions are found to the minute. */
function offsetSegments(c: Compiled, from: number, to: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  let segStart = from;
  let off = c.zone.offset(from);
  let probe = from;
  while (probe < to) {
    const next = Math.min(probe + HOUR, to - 1);
    if (next <= probe) break;
    if (c.zone.offset(next) !== off) {
      // The first minute in (probe, next] with another offset.
      let lo = Math.floor(probe / MINUTE);
      let hi = Math.ceil(next / MINUTE);
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (c.zone.offset(mid * MINUTE) === off) lo = mid;
        else hi = mid;
      }
      const at = Math.max(hi * MINUTE, segStart + 1);
      out.push([segStart, at, off]);
      segStart = at;
      off = c.zone.offset(at);
      probe = at;
    } else probe = next;
  }
  out.push([segStart, to, off]);
  return out;
}

/** Business instant ranges [start, end) (epoch ms) of local day `day`, in order. */
function dayRanges(c: Compiled, day: number): [number, number][] {
  const cached = c.days.get(day);
  if (cached) return cached;
  const wall = wallRanges(c, day);
  const out: [number, number][] = [];
  if (wall.length > 0) {
    const begin = startOfDay(c, day);
    const end = startOfDay(c, day + 1);
    const wallMidnight = day * DAY;
    for (const [s, e, off] of offsetSegments(c, begin, end)) {
      // In this segment local wall time (ms since local midnight) is instant + offset - wallMidnight.
      const shift = off * MINUTE - wallMidnight;
      for (const [a, b] of wall) {
        const lo = Math.max(s, a * MINUTE - shift);
        const hi = Math.min(e, b * MINUTE - shift);
        if (hi > lo) out.push([lo, hi]);
      }
    }
  }
  const merged = merge(out);
  if (c.days.size > 4096) c.days.clear();
  c.days.set(day, merged);
  return merged;
}

/** The local day (days since epoch) an instant falls on. */
function localDay(c: Compiled, at: number): number {
  return Math.floor((at + c.zone.offset(at) * MINUTE) / DAY);
}

/**
 * Business minutes in [from, to) under `schedule` (fractional when the instants are not whole minutes; 0
 * when `to` is not after `from`). Throws RangeError for an unknown time zone or a malformed interval.
 */
export function businessMinutesBetween(schedule: BusinessSchedule, from: Date, to: Date): number {
  const c = compile(schedule);
  const a = from.getTime();
  const b = to.getTime();
  if (b <= a) return 0;
  let total = 0;
  for (let day = localDay(c, a); ; day++) {
    const ranges = dayRanges(c, day);
    for (const [s, e] of ranges) {
      const lo = Math.max(s, a);
      const hi = Math.min(e, b);
      if (hi > lo) total += hi - lo;
    }
    if (startOfDay(c, day + 1) >= b) break;
  }
  return total / MINUTE;
}

/**
 * The first instant `t` ≥ `from` with exactly `minutes` business minutes in [from, t): `from` itself for 0,
 * else the end of the last business minute needed. Null when the schedule holds too little business time in
 * the next 800 days (no intervals, or holidays everywhere). Throws RangeError like `businessMinutesBetween`.
 */
export function addBusinessMinutes(schedule: BusinessSchedule, from: Date, minutes: number): Date | null {
  const c = compile(schedule);
  const a = from.getTime();
  let left = minutes * MINUTE;
  if (left <= 0) return new Date(a);
  const first = localDay(c, a);
  for (let day = first; day < first + MAX_SEARCH_DAYS; day++) {
    for (const [s, e] of dayRanges(c, day)) {
      const lo = Math.max(s, a);
      if (e <= lo) continue;
      if (e - lo >= left) return new Date(lo + left);
      left -= e - lo;
    }
  }
  return null;
}

/** Whether `at` is business time under `schedule`. */
export function isBusinessTime(schedule: BusinessSchedule, at: Date): boolean {
  const c = compile(schedule);
  const t = at.getTime();
  const day = localDay(c, t);
  return [...dayRanges(c, day - 1), ...dayRanges(c, day)].some(([s, e]) => s <= t && t < e);
}
