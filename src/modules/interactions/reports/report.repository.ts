/** Reads of the conversation reports (the statement is in report.sql.ts). */
import type { Db } from '../../../db/client.js';
import { runShapedIn } from '../../../db/statement.js';
import { DAILY_REPORT, type ReportGroup } from './report.sql.js';

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

/** The rows of entity `entityId` from local day `from` to `to` (YYYY-MM-DD, both included) in `timeZone`; `agentId` limits them to one agent. */
export function dailyReport(
  db: Db,
  q: { entityId: number; timeZone: string; from: string; to: string; group: ReportGroup; agentId: number | null },
): Promise<DailyReportRow[]> {
  return runShapedIn<DailyReportRow, ReportGroup>(db, DAILY_REPORT, q.group, {
    entityId: q.entityId,
    timeZone: q.timeZone,
    from: q.from,
    to: q.to,
    agentId: q.agentId,
  });
}
