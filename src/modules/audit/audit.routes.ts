import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { AuditCsvQuery, AuditEntryPage, AuditListQuery, AuditRetention } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

const CSV = 'text/csv';

/** `/audit` (served bare and under /api): the entity's audit trail for `audit.view` (issue 54, docs/api/audit.md). */
export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  const tags = ['audit'];
  const view = { auth: 'audit.view' as const };
  app.get(
    '/audit/entries',
    {
      config: view,
      schema: {
        tags,
        summary: "The entity's audit entries, newest first",
        description:
          'Filters: actor (kind, user, employee), action (or a prefix ending in a dot), target (type and id), time range (`from` inclusive, `to` exclusive).',
        querystring: AuditListQuery,
        response: { 200: AuditEntryPage },
      },
    },
    async (request) => audit.list(principalOf(request), request.query),
  );
  app.get(
    '/audit/entries.csv',
    {
      config: view,
      schema: {
        tags,
        summary: "The entity's audit entries as CSV (streamed, newest first, at most 100,000)",
        querystring: AuditCsvQuery,
        produces: [CSV],
        response: {
          200: {
            description: 'The entries',
            content: { [CSV]: { schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'CSV, a header line, CRLF' }) } },
          },
        },
      },
    },
    async (request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="audit.csv"')
        .send(Readable.from(audit.csv(principalOf(request), request.query))),
  );
  app.get(
    '/audit/retention',
    { config: view, schema: { tags, summary: 'How many days the entity keeps its audit trail', response: { 200: AuditRetention } } },
    async (request) => audit.retention(principalOf(request)),
  );
  app.put(
    '/audit/retention',
    {
      config: { auth: 'privacy.manage' as const },
      schema: { tags, summary: 'Set how many days the entity keeps its audit trail (30 to 3650)', body: AuditRetention, response: { 200: AuditRetention } },
    },
    async (request) => audit.setRetention(principalOf(request), request.body.days),
  );
};
