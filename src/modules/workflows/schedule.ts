/**
 * Slots of a scheduled workflow (SPEC "Field registry" → scheduled): `run_at_time` HH:mm local time in
 * `timezone` (IANA; default the entity's) on `active_days` (1 = Monday … 7 = Sunday; default every day).
 * Pure: the clock is a parameter. Daylight-saving changes follow the time zone database through luxon:
 * a local time skipped by a spring-forward change runs at the same offset after the gap (02:30 → 03:30),
 * a local time repeated by a fall-back change runs once, at its first occurrence.
 */
import { DateTime } from 'luxon';
import { isGroup, type FilterNode } from './filter-engine.js';

export interface Schedule {
  runAtTime: string;
  timezone: string;
  activeDays: number[];
}

/** One firing of a schedule: its instant and SPEC's scheduled trigger context. */
export interface Slot {
  at: Date;
  context: { type: 'scheduled'; entity_id: number; execution_date: string; execution_time: string; timezone: string; day_of_week: number };
}

/** Reads the schedule from a scheduled trigger's filters (validated on save). */
export function scheduleOf(filters: readonly FilterNode[], defaultTimezone: string): Schedule {
  const flat = filters.filter((f) => !isGroup(f)) as { field: string; value?: unknown }[];
  const value = (field: string) => flat.find((f) => f.field === field)?.value;
  return {
    runAtTime: String(value('run_at_time')),
    timezone: typeof value('timezone') === 'string' ? (value('timezone') as string) : defaultTimezone,
    activeDays: Array.isArray(value('active_days')) ? (value('active_days') as number[]) : [1, 2, 3, 4, 5, 6, 7],
  };
}

/** The first slot strictly after `after` (within the next eight local days), or undefined when no day is active. */
export function nextSlot(schedule: Schedule, after: Date, entityId: number): Slot | undefined {
  const [hour, minute] = schedule.runAtTime.split(':').map(Number) as [number, number];
  const today = DateTime.fromJSDate(after, { zone: schedule.timezone }).startOf('day');
  for (let d = 0; d <= 8; d++) {
    const day = today.plus({ days: d });
    if (!schedule.activeDays.includes(day.weekday)) continue;
    const at = firstOccurrence(DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute }, { zone: schedule.timezone }));
    if (at.toMillis() <= after.getTime()) continue;
    return {
      at: at.toJSDate(),
      context: {
        type: 'scheduled',
        entity_id: entityId,
        execution_date: day.toISODate()!,
        execution_time: at.toFormat('HH:mm'),
        timezone: schedule.timezone,
        day_of_week: day.weekday,
      },
    };
  }
  return undefined;
}

/** The slot of `schedule` at instant `at` (a stored `next_run_at`), with its context. */
export function slotAt(schedule: Schedule, at: Date, entityId: number): Slot {
  const local = DateTime.fromJSDate(at, { zone: schedule.timezone });
  return {
    at,
    context: {
      type: 'scheduled',
      entity_id: entityId,
      execution_date: local.toISODate()!,
      execution_time: local.toFormat('HH:mm'),
      timezone: schedule.timezone,
      day_of_week: local.weekday,
    },
  };
}

/**
 * luxon resolves a wall time repeated by a fall-back change to its later occurrence; a schedule runs at
 * the first one (as cron does), so step back by the change when the earlier instant shows the same wall time.
 */
function firstOccurrence(at: DateTime): DateTime {
  const before = at.minus({ hours: 12 }).offset;
  if (before <= at.offset) return at;
  const earlier = at.minus({ minutes: before - at.offset });
  return earlier.toFormat('yyyy-MM-dd HH:mm') === at.toFormat('yyyy-MM-dd HH:mm') ? earlier : at;
}
