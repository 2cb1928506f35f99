/** Reads of the conversation reports and the kept days (the statements are in report.sql.ts). */
import type { Db } from '../../../db/client.js';
import { runShapedIn, runStatementIn } from '../../../db/statement.js';
import {
  DAILY_REPORT,
  KEEP_REPORT_DAYS,
  KEPT_REPORT_DAYS,
  LABELLED_DAILY_REPORT,
  LOCK_REPORT_DAYS,
  PLAN_LABELLED_REPORT,
  type LabelReportGroup,
  type ReportGroup,
} from './report.sql.js';

/** One aggregated row of the daily report, as the statement returns it (durations in calendar seconds). */
export interface DailyReportRow {
  day: string;
  key: string | null;
  opened: number;
  resolved: number;
  reopened: number;
  first_response_median: number | null;
  first_response_p90: number | null;
  resolution_median: number | null;
  resolution_p90: number | null;
  sla_total: number;
  sla_met: number;
  messages_in: number;
  messages_out: number;
}

/** Which report: entity `entityId`'s, days in `timeZone`, grouped by `group`; `agentId` limits it to one agent (null: every agent). */
export interface ReportScope {
  entityId: number;
  timeZone: string;
  group: ReportGroup;
  agentId: number | null;
}

/** The rows from local day `from` to `to` (YYYY-MM-DD, both included), computed from the event log. */
export function dailyReport(db: Db, q: ReportScope & { from: string; to: string }): Promise<DailyReportRow[]> {
  return runShapedIn<DailyReportRow, ReportGroup>(db, DAILY_REPORT, q.group, {
    entityId: q.entityId,
    timeZone: q.timeZone,
    from: q.from,
    to: q.to,
    agentId: q.agentId,
  });
}

/**
 * The rows from local day `from` to `to` of the conversations carrying labels as they are now: those carrying any
 * of `labels` (null: every labelled conversation; required unless `group` is `label`), per label with `label`
 * (key: the label id; only `labels`' when given). Never kept: labels change after the fact. Run it after
 * `planLabelledReport`, in the same transaction.
 */
export function labelledDailyReport(
  db: Db,
  q: { entityId: number; timeZone: string; group: LabelReportGroup; agentId: number | null; from: string; to: string; labels: readonly number[] | null },
): Promise<DailyReportRow[]> {
  return runShapedIn<DailyReportRow, LabelReportGroup>(db, LABELLED_DAILY_REPORT, q.group, {
    entityId: q.entityId,
    timeZone: q.timeZone,
    from: q.from,
    to: q.to,
    agentId: q.agentId,
    labels: q.labels === null ? null : [...q.labels],
  });
}

/** Sets how `labelledDailyReport` is planned until `tx` ends (PLAN_LABELLED_REPORT); `tx` must be a transaction. */
export async function planLabelledReport(tx: Db): Promise<void> {
  await runStatementIn(tx, PLAN_LABELLED_REPORT, []);
}

/** The kept days of the report from `from` to `to`: day (YYYY-MM-DD) to its rows. */
export async function keptReportDays(db: Db, q: ReportScope & { from: string; to: string }): Promise<Map<string, DailyReportRow[]>> {
  const rows = await runShapedIn<{ day: string; rows: DailyReportRow[] }, boolean>(db, KEPT_REPORT_DAYS, q.agentId !== null, {
    entityId: q.entityId,
    timeZone: q.timeZone,
    group: q.group,
    agentId: q.agentId,
    from: q.from,
    to: q.to,
  });
  return new Map(rows.map((r) => [r.day, r.rows]));
}

/** Takes the entity's report lock until `tx` ends (LOCK_REPORT_DAYS); `tx` must be a transaction. */
export async function lockReportDays(tx: Db, entityId: number): Promise<void> {
  await runStatementIn(tx, LOCK_REPORT_DAYS, [entityId]);
}

/** Keeps the given days' rows, those that ended `closedForMinutes` before the transaction began (KEEP_REPORT_DAYS). */
export async function keepReportDays(tx: Db, q: ReportScope, days: { day: string; rows: DailyReportRow[] }[], closedForMinutes: number): Promise<void> {
  await runStatementIn(tx, KEEP_REPORT_DAYS, [q.entityId, q.timeZone, q.group, q.agentId, JSON.stringify(days), closedForMinutes]);
}
