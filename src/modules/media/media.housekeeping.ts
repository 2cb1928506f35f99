/**
 * Media housekeeping, run by a schedule: removes uploads never finalized (and failed ones) older than
 * `pendingUploadTtlHours`, and website chat visitors' unsent uploads once their place expires (minutes:
 * `VISITOR_PENDING_TTL_MS`), with their objects; removes originals `originalRetentionDays` after their
 * optimized version was made (0 keeps them); and re-dispatches objects stuck in `processing` (a process
 * that stopped mid-job, or a crash between commit and enqueue). Each step works in bounded batches.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { ObjectStorage } from '../../platform/storage/index.js';
import { uploadKeyOf } from './media.keys.js';
import { VISITOR_PENDING_TTL_MS } from './media.timing.js';
import { abandonedUploads, deleteMedia, expiredOriginals, markOriginalDeleted, stalledProcessing } from './media.repository.js';

export interface HousekeepingDeps {
  db: Db;
  storage: ObjectStorage;
  log: FastifyBaseLogger;
  pendingUploadTtlHours: number;
  originalRetentionDays: number;
  /** Re-dispatches a stalled object for processing. */
  redispatch(mediaId: number): Promise<void>;
}

export interface HousekeepingReport {
  removedUploads: number;
  removedOriginals: number;
  redispatched: number;
}

const BATCH = 200;
const STALLED_AFTER_MS = 15 * 60_000;

export function createMediaHousekeeping(deps: HousekeepingDeps) {
  const { db, storage } = deps;
  return {
    /** One pass as of `now`. */
    async run(now = new Date()): Promise<HousekeepingReport> {
      const report: HousekeepingReport = { removedUploads: 0, removedOriginals: 0, redispatched: 0 };
      const before = new Date(now.getTime() - deps.pendingUploadTtlHours * 3600_000);
      for (const row of await abandonedUploads(db, before, new Date(now.getTime() - VISITOR_PENDING_TTL_MS), BATCH)) {
        await storage.delete(row.originalKey);
        await storage.delete(uploadKeyOf(row.originalKey));
        await deleteMedia(db, row.id);
        report.removedUploads++;
      }
      if (deps.originalRetentionDays > 0) {
        for (const row of await expiredOriginals(db, new Date(now.getTime() - deps.originalRetentionDays * 86_400_000), BATCH)) {
          await storage.delete(row.originalKey);
          await markOriginalDeleted(db, row.id);
          report.removedOriginals++;
        }
      }
      for (const row of await stalledProcessing(db, new Date(now.getTime() - STALLED_AFTER_MS), BATCH)) {
        await deps.redispatch(row.id);
        report.redispatched++;
      }
      if (report.removedUploads + report.removedOriginals + report.redispatched > 0) deps.log.info(report, 'media housekeeping');
      return report;
    },
  };
}
export type MediaHousekeeping = ReturnType<typeof createMediaHousekeeping>;
