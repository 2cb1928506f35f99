/**
 * Imports (issue 52): a company's leads and contacts from a CSV or xlsx file uploaded through media, previewed,
 * mapped, dry-run and run as durable jobs that resume where they stopped. Records are written through records'
 * import service; the file is read through media's; the error report is stored in the object storage.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import type { MediaModule } from '../media/index.js';
import type { RecordImport } from '../records/index.js';
import { importRoutes } from './import.routes.js';
import { createImportService } from './import.service.js';
import { createImportRunner } from './import.runner.js';
import { startImportJobs } from './import.jobs.js';

/** Registers `/imports` and `/import-templates` bare and under `/api`, and the import queues (workers where they run). */
export async function registerImportsModule(
  app: FastifyInstance,
  ctx: AppContext,
  deps: { media: MediaModule; records: RecordImport; workers: boolean },
): Promise<void> {
  const runner = createImportRunner({
    db: ctx.db,
    events: ctx.events,
    realtime: ctx.publisher,
    media: deps.media.service,
    storage: deps.media.storage,
    records: deps.records,
    log: ctx.log,
  });
  const service = createImportService({ db: ctx.db, queue: ctx.queue, media: deps.media.service, storage: deps.media.storage, realtime: ctx.publisher });
  await startImportJobs({ queue: ctx.queue, db: ctx.db, runner, workers: deps.workers });
  await registerBareAndApi(app, importRoutes, { service });
}
