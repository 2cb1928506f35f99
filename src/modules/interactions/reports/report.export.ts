/**
 * The daily report as a download: CSV (RFC 4180, a header line) or .xlsx (exceljs's streaming writer, as
 * the cartera export), both streamed while the client reads them. A report has at most a row per day and
 * group, read at once; rows are written in batches that wait for the output to drain.
 */
import { PassThrough, Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { BackpressuredWorkbookWriter } from '../../../platform/xlsx/workbook-writer.js';
import type { DailyReport, DailyReportRow } from './report.schemas.js';

const BATCH = 500;

interface Column {
  header: string;
  value: (r: DailyReportRow) => string | number | null;
}

/** The group's column of each grouping. */
const GROUP_COLUMNS: Record<NonNullable<DailyReport['group_by']>, Column> = {
  agent: { header: 'agent_id', value: (r) => r.agent_id ?? null },
  queue: { header: 'queue_id', value: (r) => r.queue_id ?? null },
  channel: { header: 'channel', value: (r) => r.channel ?? null },
  label: { header: 'label_id', value: (r) => r.label_id ?? null },
};

/** The columns of a download, in order: the group's column (when grouped), then the measures. */
function columnsOf(report: DailyReport): Column[] {
  return [
    { header: 'date', value: (r) => r.date },
    ...(report.group_by === null ? [] : [GROUP_COLUMNS[report.group_by]]),
    { header: 'conversations_opened', value: (r) => r.conversations_opened },
    { header: 'conversations_resolved', value: (r) => r.conversations_resolved },
    { header: 'conversations_reopened', value: (r) => r.conversations_reopened },
    { header: 'first_response_median_seconds', value: (r) => r.first_response_median_seconds },
    { header: 'first_response_p90_seconds', value: (r) => r.first_response_p90_seconds },
    { header: 'resolution_median_seconds', value: (r) => r.resolution_median_seconds },
    { header: 'resolution_p90_seconds', value: (r) => r.resolution_p90_seconds },
    { header: 'sla_achievement_pct', value: (r) => r.sla_achievement_pct },
    { header: 'messages_in', value: (r) => r.messages_in },
    { header: 'messages_out', value: (r) => r.messages_out },
  ];
}

const csvField = (v: string | number | null) => (v === null ? '' : typeof v === 'number' ? String(v) : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The report as CSV lines (CRLF), an empty field for null. */
export function reportCsv(report: DailyReport): Readable {
  const columns = columnsOf(report);
  async function* lines() {
    yield columns.map((c) => c.header).join(',') + '\r\n';
    for (let i = 0; i < report.rows.length; i += BATCH)
      yield report.rows
        .slice(i, i + BATCH)
        .map((r) => columns.map((c) => csvField(c.value(r))).join(',') + '\r\n')
        .join('');
  }
  return Readable.from(lines(), { objectMode: false });
}

/** The report as an .xlsx of one sheet "Report" (a header row, then a row per report row; empty cells for null). */
export function reportXlsx(report: DailyReport, log: FastifyBaseLogger): PassThrough {
  const out = new PassThrough();
  const workbook = new BackpressuredWorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Report');
  const columns = columnsOf(report);
  sheet.columns = columns.map((c) => ({ header: c.header, key: c.header, width: Math.max(12, c.header.length + 2) }));
  const produce = async () => {
    for (let i = 0; i < report.rows.length; i += BATCH) {
      for (const r of report.rows.slice(i, i + BATCH)) sheet.addRow(columns.map((c) => c.value(r) ?? undefined)).commit();
      await workbook.drained(out);
      if (out.destroyed) return;
    }
    sheet.commit();
    await workbook.commit();
  };
  produce().catch((err: unknown) => {
    log.error({ err }, 'report export failed');
    out.destroy(err instanceof Error ? err : new Error('export failed'));
  });
  return out;
}
