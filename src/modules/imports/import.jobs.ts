/**
 * The imports' queue calls: `imports.run` runs (or resumes) one import, enqueued in the change that records
 * it; `imports.resume`, every minute where workers run, queues again the real runs whose worker died (no batch
 * committed for `STALE_AFTER_MS`). A second worker of one import is harmless: the checkpoint lets one batch
 * commit once (import.runner.ts).
 */
import type { Queue } from '../../platform/queue/queue.js';
import type { Db } from '../../db/client.js';
import { staleRunningJobs } from './import.repository.js';
import type { ImportRunner } from './import.runner.js';

export const IMPORT_QUEUE = 'imports.run';
const RESUME_QUEUE = 'imports.resume';
/** A running import that committed nothing for this long lost its worker (a batch takes well under a second). */
const STALE_AFTER_MS = 2 * 60_000;

declare module '../../platform/queue/queue.js' {
  interface JobMap {
    'imports.run': { importId: number };
    'imports.resume': Record<string, never>;
  }
}

/** Creates the queues; with `workers`, runs imports (two at once per process) and the resume sweep. */
export async function startImportJobs(deps: { queue: Queue; db: Db; runner: ImportRunner; workers: boolean }): Promise<void> {
  const { queue, db, runner } = deps;
  // An attempt may take long (a million rows): its liveness is the heartbeat, not pg-boss's expiry.
  await queue.define(IMPORT_QUEUE, { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 6 * 3600 });
  await queue.define(RESUME_QUEUE, { retryLimit: 0 });
  if (!deps.workers) return;
  await queue.work(IMPORT_QUEUE, async ({ importId }) => runner.run(importId), { concurrency: 2, pollingIntervalSeconds: 1 });
  await queue.work(RESUME_QUEUE, async () => void (await resumeStale(queue, db)));
  await queue.schedule(RESUME_QUEUE, '* * * * *', {}, { tz: 'UTC' });
}

/** Queues every stale running import again; returns how many. */
async function resumeStale(queue: Queue, db: Db): Promise<number> {
  const ids = await staleRunningJobs(db, new Date(Date.now() - STALE_AFTER_MS));
  for (const importId of ids) await queue.enqueue(db, IMPORT_QUEUE, { importId });
  return ids.length;
}
