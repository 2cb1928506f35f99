import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../platform/auth/guard.js';
import { problemResponse } from '../../../platform/http/openapi.js';
import { DailyReport, DailyReportQuery } from './report.schemas.js';
import type { ReportService } from './report.service.js';
import { reportCsv, reportXlsx } from './report.export.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const CSV = 'text/csv';
const Download = (description: string) => Type.Unsafe<Readable>({ type: 'string', format: 'binary', description });

/**
 * `/interactions/reports/daily` (JSON), `.csv` and `.xlsx` (streamed downloads): any member; the rows
 * depend on `reports.view` (report.service.ts).
 */
export const reportRoutes: FastifyPluginAsyncTypebox<{ service: ReportService }> = async (app, { service }) => {
  const tags = ['interactions'];
  const problems = {
    403: problemResponse('`permission_denied` (`reports.view`): a grouping other than `agent` (`label` too) without it'),
    422: problemResponse('`report_range_invalid`: a day that does not exist, `to` before `from`, or more than 366 days'),
  };
  const jwt = { auth: 'jwt' as const };
  const description =
    "Per local day (the entity's time zone) and per agent, routing queue, channel or label: conversations opened, resolved and reopened, first response and resolution times (median and p90, seconds), SLA achievement and messages in and out, from the conversation event log; `label` keeps the conversations carrying any of the labels (the labels they carry now). Without `reports.view` only the caller's own rows (group_by=agent).";
  app.get(
    '/interactions/reports/daily',
    {
      config: jwt,
      schema: { tags, summary: 'Daily conversation report', description, querystring: DailyReportQuery, response: { 200: DailyReport, ...problems } },
    },
    async (request) => service.daily(principalOf(request), request.query),
  );
  app.get(
    '/interactions/reports/daily.csv',
    {
      config: jwt,
      schema: {
        tags,
        summary: 'Daily conversation report as CSV (streamed)',
        description,
        querystring: DailyReportQuery,
        produces: [CSV],
        response: { 200: { description: 'The report', content: { [CSV]: { schema: Download('CSV, a header line, CRLF') } } }, ...problems },
      },
    },
    async (request, reply) => {
      const report = await service.dailyExport(principalOf(request), request.query, 'csv');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="conversations-${report.from}-${report.to}.csv"`)
        .send(reportCsv(report));
    },
  );
  app.get(
    '/interactions/reports/daily.xlsx',
    {
      config: jwt,
      schema: {
        tags,
        summary: 'Daily conversation report as a spreadsheet (streamed)',
        description,
        querystring: DailyReportQuery,
        produces: [XLSX],
        response: { 200: { description: 'The report', content: { [XLSX]: { schema: Download('The spreadsheet') } } }, ...problems },
      },
    },
    async (request, reply) => {
      const report = await service.dailyExport(principalOf(request), request.query, 'xlsx');
      return reply
        .type(XLSX)
        .header('content-disposition', `attachment; filename="conversations-${report.from}-${report.to}.xlsx"`)
        .send(reportXlsx(report, request.log));
    },
  );
};
