import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/guard.js';
import { IdParams } from '../../platform/http/ids.js';
import { problemResponse } from '../../platform/http/openapi.js';
import { serviceOrigin as originOf } from '../../platform/http/service-origin.js';
import {
  CreateImportBody,
  CreateTemplateBody,
  ErrorReportResponse,
  ImportListResponse,
  ImportResponse,
  PreviewImportBody,
  PreviewImportResponse,
  TemplateListResponse,
  TemplateResponse,
} from './import.schemas.js';
import type { ImportService } from './import.service.js';

/** `/imports` and `/import-templates` (served bare and under /api), all with `imports.run`. */
export const importRoutes: FastifyPluginAsyncTypebox<{ service: ImportService }> = async (app, { service }) => {
  const tags = ['imports'];
  const config = { auth: 'imports.run' as const };
  const refused = problemResponse(
    '`import_file_empty`, `import_file_not_text`, `import_file_not_xlsx`, `import_sheet_not_found`, `import_too_many_rows` (with `limit_rows`), `import_required_column_missing` (with `missing`), `validation_failed`',
  );
  const notReady = problemResponse('`media_not_ready`: the file is not uploaded and finalized');
  const noFile = problemResponse('`not_found`: the media object (or template) is not of the entity');
  app.post(
    '/imports/preview',
    {
      config,
      schema: {
        tags,
        summary: 'How a file reads: format, encoding, delimiter, headers, five rows, a suggested mapping',
        body: PreviewImportBody,
        response: { 200: PreviewImportResponse, 400: refused, 404: noFile, 409: notReady },
      },
    },
    async (request) => service.preview(principalOf(request), request.body),
  );
  app.post(
    '/imports',
    {
      config,
      schema: {
        tags,
        summary: 'Import a file of leads or contacts (dry_run: count only); checked whole, then run as a job',
        body: CreateImportBody,
        response: { 202: ImportResponse, 400: refused, 404: noFile, 409: notReady },
      },
    },
    async (request, reply) => reply.code(202).send(await service.create(principalOf(request), request.body)),
  );
  app.get(
    '/imports',
    { config, schema: { tags, summary: "The entity's last 50 imports, newest first", response: { 200: ImportListResponse } } },
    async (request) => service.list(principalOf(request)),
  );
  app.get(
    '/imports/:id',
    { config, schema: { tags, summary: 'An import: status, counts, first failed rows', params: IdParams, response: { 200: ImportResponse } } },
    async (request) => service.get(principalOf(request), request.params.id),
  );
  app.post(
    '/imports/:id/cancel',
    {
      config,
      schema: {
        tags,
        summary: 'Stop an import after its current batch',
        params: IdParams,
        response: { 200: ImportResponse, 409: problemResponse('`import_not_cancellable`: the import already ended') },
      },
    },
    async (request) => service.cancel(principalOf(request), request.params.id),
  );
  app.get(
    '/imports/:id/error-report',
    {
      config,
      schema: {
        tags,
        summary: 'A short-lived URL of the xlsx of failed rows (row, column, reason)',
        params: IdParams,
        response: { 200: ErrorReportResponse, 409: problemResponse('`import_report_not_ready`: not ended, or no failed rows') },
      },
    },
    async (request) => service.errorReport(principalOf(request), request.params.id, originOf(request)),
  );
  app.get('/import-templates', { config, schema: { tags, summary: 'Saved column mappings', response: { 200: TemplateListResponse } } }, async (request) =>
    service.listTemplates(principalOf(request)),
  );
  app.post(
    '/import-templates',
    {
      config,
      schema: {
        tags,
        summary: 'Save a column mapping for the next file of the same shape',
        body: CreateTemplateBody,
        response: { 201: TemplateResponse, 409: problemResponse('`import_template_name_taken`') },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createTemplate(principalOf(request), request.body)),
  );
  app.delete(
    '/import-templates/:id',
    { config, schema: { tags, summary: 'Delete a saved mapping', params: IdParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await service.deleteTemplate(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
