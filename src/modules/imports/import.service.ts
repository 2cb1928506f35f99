/**
 * Imports of a company's customers from a file (issue 52; docs/api/imports.md). A file uploaded through the
 * media module is previewed (how it reads, its headers, a suggested mapping), then imported as a job, dry
 * (counts only) or real, run on the durable queue (`imports.run`). Everything that can refuse a file is checked
 * before the job exists: an empty file, a binary one offered as CSV, more than `MAX_IMPORT_ROWS` rows, a
 * required field no column maps to. A job can be cancelled; its failed rows come back as an xlsx report.
 * Errors: 400 `import_file_empty`, `import_file_not_text`, `import_file_not_xlsx`, `import_sheet_not_found`,
 * `import_too_many_rows`, `import_required_column_missing`, `validation_failed`; 404 `not_found` (another
 * entity's import, file or template too); 409 `media_not_ready`, `import_not_cancellable`,
 * `import_report_not_ready`, `import_template_name_taken`.
 */
import type { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { badRequest, conflict, notFound, validationFailed } from '../../platform/errors.js';
import type { Queue } from '../../platform/queue/queue.js';
import type { RealtimeEmitter } from '../../platform/realtime/events.js';
import type { ObjectStorage } from '../../platform/storage/index.js';
import { transaction } from '../../platform/transactions/transaction.js';
import type { MediaService } from '../media/index.js';
import { MATCH_KEYS, REQUIRED_FIELDS, fieldsOf, suggestMapping, type ImportField } from './import.fields.js';
import { HEAD_BYTES, detectReading, readRows, type FileReading } from './import.reader.js';
import * as repo from './import.repository.js';
import type { ImportOptions } from './import.options.js';
import type {
  CreateImportBody,
  CreateTemplateBody,
  ImportKind,
  ImportResponse,
  PreviewImportBody,
  PreviewImportResponse,
  TemplateResponse,
} from './import.schemas.js';
import { emitImportProgress } from './import.events.js';
import { IMPORT_QUEUE } from './import.jobs.js';

/** Data rows a file may hold (the header not counted): past it the file is refused before any work. */
const MAX_IMPORT_ROWS = 1_000_000;
/** Seconds a report's download URL lives. */
const REPORT_URL_TTL_SECONDS = 600;
const FIRST_ERRORS = 20;

async function readHead(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).subarray(0, HEAD_BYTES);
}

export function createImportService(deps: { db: Db; queue: Queue; media: Pick<MediaService, 'original'>; storage: ObjectStorage; realtime: RealtimeEmitter }) {
  const { db } = deps;

  async function open(entityId: number, body: PreviewImportBody): Promise<{ reading: FileReading; rows: () => Promise<AsyncGenerator<string[]>> }> {
    const file = await deps.media.original(entityId, body.media_id);
    const head = file.size === 0 ? Buffer.alloc(0) : await readHead(await file.read({ start: 0, end: Math.min(file.size, HEAD_BYTES) - 1 }));
    const reading = detectReading(head, file.size, body);
    return { reading, rows: async () => readRows(await file.read(), reading) };
  }

  async function respond(row: repo.ImportJobRow): Promise<ImportResponse> {
    const o = row.options as ImportOptions;
    const firstErrors = await repo.errorsAfter(db, row.id, 0, FIRST_ERRORS);
    return {
      id: row.id,
      kind: row.kind,
      dry_run: row.dryRun,
      status: row.status,
      media_id: row.mediaId,
      reading: o.reading,
      mapping: o.mapping,
      match_by: o.match_by,
      on_match: o.on_match,
      default_country: o.default_country,
      total_rows: row.totalRows,
      rows_done: row.rowsDone,
      created: row.created,
      updated: row.updated,
      skipped: row.skipped,
      errors: row.errors,
      first_errors: firstErrors,
      failure: row.failure,
      created_at: row.createdAt.toISOString(),
      finished_at: row.finishedAt?.toISOString() ?? null,
    };
  }

  /** 400 naming each mapped field the kind does not have. */
  function checkMapping(kind: ImportKind, mapping: Record<string, string>): Record<string, ImportField> {
    const known = new Set<string>(fieldsOf(kind));
    const errors = Object.entries(mapping)
      .filter(([, f]) => !known.has(f))
      .map(([h, f]) => ({ field: `/body/mapping/${h}`, message: `${f} is not a field of ${kind} (${[...known].join(', ')})` }));
    if (errors.length > 0) throw validationFailed(errors);
    return mapping as Record<string, ImportField>;
  }

  function templateResponse(t: repo.TemplateRow): TemplateResponse {
    return { id: t.id, kind: t.kind, name: t.name, mapping: t.mapping as Record<string, string>, created_at: t.createdAt.toISOString() };
  }

  return {
    /** How the file reads, its header, five rows and the mapping suggested from the header. */
    async preview(caller: Principal, body: PreviewImportBody): Promise<PreviewImportResponse> {
      const { reading, rows } = await open(caller.entityId, body);
      const it = await rows();
      const read: string[][] = [];
      for await (const cells of it) {
        read.push(cells);
        if (read.length === 6) break;
      }
      const headers = read[0] ?? [];
      return { reading, headers, suggested_mapping: suggestMapping(body.kind, headers), sample: read.slice(1) };
    },

    /**
     * Checks the file whole (readable, at most `MAX_IMPORT_ROWS` rows, the required fields mapped), then records
     * the job and queues it in one change. Answers the job, `queued`.
     */
    async create(caller: Principal, body: CreateImportBody): Promise<ImportResponse> {
      const kind = body.kind;
      const matchBy = body.match_by ?? MATCH_KEYS[kind][0];
      if (!(MATCH_KEYS[kind] as readonly string[]).includes(matchBy)) {
        throw validationFailed([{ field: '/body/match_by', message: `${kind} match by ${MATCH_KEYS[kind].join(', ')}` }]);
      }
      let templateMapping: Record<string, string> | undefined;
      if (body.template_id !== undefined) {
        const t = await repo.findTemplate(db, caller.entityId, body.template_id);
        if (!t || t.kind !== kind) throw notFound('import template', body.template_id);
        templateMapping = t.mapping as Record<string, string>;
      }
      const { reading, rows } = await open(caller.entityId, body);
      let header: string[] | undefined;
      let total = 0;
      for await (const cells of await rows()) {
        if (header === undefined) header = cells;
        else if (++total > MAX_IMPORT_ROWS) {
          throw badRequest('import_too_many_rows', `A file may hold at most ${MAX_IMPORT_ROWS} rows besides its header`, { limit_rows: MAX_IMPORT_ROWS });
        }
      }
      if (header === undefined) throw badRequest('import_file_empty', 'The file has no rows');
      const mapping = checkMapping(kind, body.mapping ?? templateMapping ?? suggestMapping(kind, header));
      const mapped = new Set(header.flatMap((h) => (mapping[h] !== undefined ? [mapping[h]] : [])));
      const missing: string[] = REQUIRED_FIELDS[kind].filter((f) => !mapped.has(f));
      if (kind === 'contacts' && !mapped.has('lead_erp_id') && !mapped.has('lead_id')) missing.push('lead_erp_id or lead_id');
      if (!mapped.has(matchBy)) missing.push(matchBy);
      if (missing.length > 0) {
        throw badRequest('import_required_column_missing', `No column of the file maps to ${missing.join(', ')}`, { missing, headers: header });
      }
      const options: ImportOptions = {
        kind,
        reading,
        mapping,
        match_by: matchBy,
        on_match: body.on_match ?? 'update',
        default_country: body.default_country ?? 'GT',
      };
      const row = await transaction(db, async (unit) => {
        const job = await repo.insertJob(unit.tx, {
          entityId: caller.entityId,
          kind,
          dryRun: body.dry_run ?? false,
          mediaId: body.media_id,
          options,
          totalRows: total,
          createdByEmployeeId: caller.employeeId,
        });
        await deps.queue.enqueue(unit, IMPORT_QUEUE, { importId: job.id });
        return job;
      });
      return respond(row);
    },

    async get(caller: Principal, id: number): Promise<ImportResponse> {
      const row = await repo.findJob(db, caller.entityId, id);
      if (!row) throw notFound('import', id);
      return respond(row);
    },

    async list(caller: Principal): Promise<{ data: ImportResponse[] }> {
      return { data: await Promise.all((await repo.listJobs(db, caller.entityId, 50)).map(respond)) };
    },

    /** Stops a queued or running import after its current batch (what was committed stays). 409 once it ended. */
    async cancel(caller: Principal, id: number): Promise<ImportResponse> {
      const row = await repo.findJob(db, caller.entityId, id);
      if (!row) throw notFound('import', id);
      const moved = await repo.transitionJob(db, id, ['queued', 'running'], { status: 'cancelled', finishedAt: new Date() });
      if (!moved) throw conflict('import_not_cancellable', `Import ${id} is ${row.status}`, { import_status: row.status });
      emitImportProgress(deps.realtime, moved.entityId, {
        import_id: moved.id,
        status: moved.status,
        dry_run: moved.dryRun,
        rows_done: moved.rowsDone,
        total_rows: moved.totalRows,
        created: moved.created,
        updated: moved.updated,
        skipped: moved.skipped,
        errors: moved.errors,
      });
      return respond(moved);
    },

    /** A short-lived URL of the xlsx of failed rows. 409 `import_report_not_ready` before the end or without failed rows. */
    async errorReport(caller: Principal, id: number, origin?: string): Promise<{ url: string; expires_at: string }> {
      const row = await repo.findJob(db, caller.entityId, id);
      if (!row) throw notFound('import', id);
      if (row.reportKey === null) throw conflict('import_report_not_ready', `Import ${id} has no error report (${row.status}, ${row.errors} failed rows)`);
      const url = await deps.storage.presignDownload(row.reportKey, {
        expiresInSeconds: REPORT_URL_TTL_SECONDS,
        fileName: `import-${id}-errors.xlsx`,
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        disposition: 'attachment',
        origin,
      });
      return { url: url.url, expires_at: url.expiresAt.toISOString() };
    },

    async listTemplates(caller: Principal): Promise<{ data: TemplateResponse[] }> {
      return { data: (await repo.listTemplates(db, caller.entityId)).map(templateResponse) };
    },

    async createTemplate(caller: Principal, body: CreateTemplateBody): Promise<TemplateResponse> {
      const mapping = checkMapping(body.kind, body.mapping);
      try {
        return templateResponse(await repo.insertTemplate(db, { entityId: caller.entityId, kind: body.kind, name: body.name.trim(), mapping }));
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('import_template_name_taken', `The entity already has a ${body.kind} template named "${body.name}"`);
        throw err;
      }
    },

    async deleteTemplate(caller: Principal, id: number): Promise<void> {
      if (!(await repo.deleteTemplate(db, caller.entityId, id))) throw notFound('import template', id);
    },
  };
}
export type ImportService = ReturnType<typeof createImportService>;
