/**
 * The conversation reports (issue 31; docs/api/interactions.md "Reports"): per local day of the entity's
 * time zone, and per agent, routing queue or channel, computed from the conversation event log only, so a
 * past range always reads the same. Holders of `reports.view` see every row; any other member sees only
 * the rows attributed to them (`group_by=agent`, filtered to themselves). By label (issue 49): the labels the
 * conversations carry now, so those reports are computed whole each time rather than kept.
 */
import { DateTime } from 'luxon';
import type { Db } from '../../../db/client.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { actorOf, type AuditTrail } from '../../audit/index.js';
import { permissionDenied, unprocessable } from '../../../platform/errors.js';
import type { ChannelTypeCode } from '../model/index.js';
import { transaction } from '../../../platform/transactions/transaction.js';
import {
  dailyReport,
  keepReportDays,
  keptReportDays,
  labelledDailyReport,
  lockReportDays,
  planLabelledReport,
  type DailyReportRow as Row,
  type ReportScope,
} from './report.repository.js';
import type { DailyReport, DailyReportQuery, DailyReportRow } from './report.schemas.js';

const REPORTS_VIEW = 'reports.view';
const MAX_DAYS = 366;
/**
 * A day's rows are kept once it ended this long ago (docs/decisions.md "Closed report days are kept"): twice
 * the age past which migration 0021's trigger takes an event for late.
 */
const KEEP_AFTER_MINUTES = 10;

export interface ReportService {
  /**
   * The daily report of the caller's entity. Errors: 403 `permission_denied` (`reports.view`) for a
   * `group_by` other than `agent` (`label` too) without it; 422 `report_range_invalid` for a day that does not exist,
   * `to` before `from`, or more than 366 days. `group_by=label` and `label` read the labels the conversations
   * carry now (LABELLED_DAILY_REPORT).
   */
  daily(p: Principal, q: DailyReportQuery): Promise<DailyReport>;
  /** `daily` for a download (`csv`, `xlsx`): one audit entry naming the report, its format, range and row count (issue 54). */
  dailyExport(p: Principal, q: DailyReportQuery, format: 'csv' | 'xlsx'): Promise<DailyReport>;
}

export function createReportService(deps: { db: Db; timeZoneOf: (entityId: number) => Promise<string>; audit: AuditTrail }): ReportService {
  const service: ReportService = {
    async dailyExport(p, q, format) {
      const report = await service.daily(p, q);
      await deps.audit.record(deps.db, {
        entityId: p.entityId,
        actor: actorOf(p),
        action: 'report.export',
        details: { report: 'conversations.daily', format, from: report.from, to: report.to, query: q, rows: report.rows.length },
      });
      return report;
    },
    async daily(p, q) {
      const from = DateTime.fromISO(q.from, { zone: 'UTC' });
      const to = DateTime.fromISO(q.to, { zone: 'UTC' });
      if (!from.isValid || !to.isValid)
        throw unprocessable('report_range_invalid', 'from and to must be calendar days (YYYY-MM-DD)', { from: q.from, to: q.to });
      const days = to.diff(from, 'days').days;
      if (days < 0 || days >= MAX_DAYS)
        throw unprocessable('report_range_invalid', `to must be on or after from, and at most ${MAX_DAYS} days in all`, { from: q.from, to: q.to });
      const all = p.permissions.has(REPORTS_VIEW);
      if (!all && q.group_by !== undefined && q.group_by !== 'agent') throw permissionDenied(REPORTS_VIEW);
      const groupBy = all ? (q.group_by ?? null) : 'agent';
      const timeZone = await deps.timeZoneOf(p.entityId);
      const agentId = all ? null : p.employeeId;
      const labels = q.label ?? null;
      const entity = { entityId: p.entityId, timeZone, agentId };
      // By label, or filtered by one: the labels are today's, so a past day's rows can change and none is kept.
      const rows =
        groupBy === 'label' || labels !== null
          ? await transaction(deps.db, async ({ tx }) => {
              await planLabelledReport(tx);
              return labelledDailyReport(tx, { ...entity, group: groupBy ?? 'none', from: q.from, to: q.to, labels });
            })
          : await reportRows(deps.db, { ...entity, group: groupBy ?? 'none' }, q.from, days);
      return { time_zone: timeZone, from: q.from, to: q.to, group_by: groupBy, rows: rows.map((r) => toRow(r, groupBy)) };
    },
  };
  return service;
}

/**
 * The rows of the `days + 1` local days from `from`: kept days as they were kept, the others computed (one
 * statement over the span of the missing days); those of the computed days that are closed are kept, in a
 * transaction holding the entity's report lock (report.sql.ts LOCK_REPORT_DAYS).
 */
async function reportRows(db: Db, scope: ReportScope, from: string, days: number): Promise<Row[]> {
  const start = DateTime.fromISO(from, { zone: scope.timeZone });
  const dates = Array.from({ length: days + 1 }, (_, i) => start.plus({ days: i })).map((d) => ({ day: d.toISODate()!, end: d.plus({ days: 1 }) }));
  const kept = await keptReportDays(db, { ...scope, from, to: dates.at(-1)!.day });
  const missing = dates.filter((d) => !kept.has(d.day));
  if (missing.length === 0) return dates.flatMap((d) => kept.get(d.day)!);
  const span = { from: missing[0]!.day, to: missing.at(-1)!.day };
  const closedBefore = DateTime.now().minus({ minutes: KEEP_AFTER_MINUTES });
  const closed = missing.filter((d) => d.end <= closedBefore);
  const computed =
    closed.length === 0
      ? byDay(await dailyReport(db, { ...scope, ...span }))
      : await transaction(db, async ({ tx }) => {
          await lockReportDays(tx, scope.entityId);
          const found = byDay(await dailyReport(tx, { ...scope, ...span }));
          const closedDays = closed.map((d) => ({ day: d.day, rows: found.get(d.day) ?? [] }));
          await keepReportDays(tx, scope, closedDays, KEEP_AFTER_MINUTES);
          return found;
        });
  return dates.flatMap((d) => kept.get(d.day) ?? computed.get(d.day) ?? []);
}

function byDay(rows: Row[]): Map<string, Row[]> {
  const days = new Map<string, Row[]>();
  for (const r of rows) {
    const list = days.get(r.day);
    if (list === undefined) days.set(r.day, [r]);
    else list.push(r);
  }
  return days;
}

/** Seconds to the millisecond (the event times' precision as the API shows them). */
const seconds = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

function toRow(r: Row, groupBy: DailyReport['group_by']): DailyReportRow {
  const key = r.key;
  return {
    date: r.day,
    ...(groupBy === 'agent' ? { agent_id: key === null ? null : Number(key) } : {}),
    ...(groupBy === 'queue' ? { queue_id: key === null ? null : Number(key) } : {}),
    ...(groupBy === 'channel' ? { channel: key as ChannelTypeCode } : {}),
    ...(groupBy === 'label' ? { label_id: Number(key) } : {}),
    conversations_opened: r.opened,
    conversations_resolved: r.resolved,
    conversations_reopened: r.reopened,
    first_response_median_seconds: seconds(r.first_response_median),
    first_response_p90_seconds: seconds(r.first_response_p90),
    resolution_median_seconds: seconds(r.resolution_median),
    resolution_p90_seconds: seconds(r.resolution_p90),
    sla_achievement_pct: r.sla_total === 0 ? null : Math.round((10_000 * r.sla_met) / r.sla_total) / 100,
    messages_in: r.messages_in,
    messages_out: r.messages_out,
  };
}
