import { rm } from 'node:fs/promises';
import { transaction } from '../../platform/transactions/transaction.js';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import { createObjectStorage, localObjectRoutes, type LocalStorage, type ObjectStorage } from '../../platform/storage/index.js';
import { createMediaProcessor } from './media.processor.js';
import { createMediaHousekeeping, type MediaHousekeeping } from './media.housekeeping.js';
import { createMediaJobs, type MediaJobs } from './media.jobs.js';
import { createMediaService, type MediaService } from './media.service.js';
import { mediaRoutes } from './media.routes.js';

export type { MediaService } from './media.service.js';
export { contentTypesOf, MEDIA_SIZE_LIMITS } from './media.kinds.js';

/**
 * Objects processed at once in this process: libuv's default thread pool (4) bounds sharp anyway, and
 * JPEG decoding is single-threaded, so four keep both cores busy (bench/media.bench.ts measured 2 vs 4).
 */
const INLINE_CONCURRENCY = 4;

export interface MediaModule {
  service: MediaService;
  storage: ObjectStorage;
  jobs: MediaJobs;
  housekeeping: MediaHousekeeping;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The media module (tests and benchmarks wait on `jobs.idle()` and run housekeeping). */
    media: MediaModule;
  }
}

/**
 * Registers the media API (bare and under /api), the embedded store's object endpoints when storage is
 * local, and processing: inline, or on the queue when `workers` run and the inline worker is disabled.
 */
export async function registerMediaModule(app: FastifyInstance, ctx: AppContext, options: { workers: boolean }): Promise<MediaModule> {
  const storage = createObjectStorage(ctx.config, ctx.secrets.jwtSecret);
  const m = ctx.config.media;
  const processor = createMediaProcessor({
    db: ctx.db,
    storage,
    events: ctx.events,
    realtime: ctx.publisher,
    log: ctx.log,
    imageMaxEdge: m.imageMaxEdge,
    ffmpegPath: m.ffmpegPath,
  });
  const housekeeping = createMediaHousekeeping({
    db: ctx.db,
    storage,
    log: ctx.log,
    pendingUploadTtlHours: m.pendingUploadTtlHours,
    originalRetentionDays: m.originalRetentionDays,
    redispatch: (id) => transaction(ctx.db, (unit) => jobs.dispatch(unit, id)),
  });
  const jobs = createMediaJobs({
    queue: ctx.queue,
    processor,
    housekeeping,
    inline: m.inlineWorkerEnabled,
    inlineConcurrency: INLINE_CONCURRENCY,
    log: ctx.log,
  });
  const service = createMediaService({
    db: ctx.db,
    storage,
    jobs,
    publicBaseUrl: m.publicBaseUrl,
    quotas: { bytesPerEntity: m.quotaBytesPerEntity, uploadsPerDay: m.quotaUploadsPerDay },
    visitorQuotas: m.visitorQuotas,
  });
  const mod: MediaModule = { service, storage, jobs, housekeeping };
  app.decorate('media', mod);
  app.addHook('onReady', async () => jobs.start(options));
  app.addHook('preClose', async () => jobs.stop());

  await registerBareAndApi(app, mediaRoutes, { service });
  if (storage.kind === 'local') {
    const local = storage as LocalStorage;
    local.acceptsUpload = (key) => service.acceptsUpload(key);
    await registerRoutes(app, localObjectRoutes, { storage: local });
    // Without a data directory the store lives in a temporary one that ends with the app.
    if (ctx.config.dataDir === ':memory:') app.addHook('onClose', async () => rm(local.root, { recursive: true, force: true }));
  }
  return mod;
}
