/**
 * Every queue call of the media module, in one place. Processing runs on the durable queue
 * (`media.process`, pg-boss) or, with `MEDIA_INLINE_WORKER_ENABLED`, in this process with at most
 * `inlineConcurrency` objects at once; either way a job carries the media id only. Housekeeping runs
 * every 15 minutes on the queue's schedule (`media.housekeeping`) when queue workers run.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Queue } from '../../platform/queue/queue.js';
import type { MediaProcessor } from './media.processor.js';
import type { MediaHousekeeping } from './media.housekeeping.js';

export const MEDIA_PROCESS_QUEUE = 'media.process';
export const MEDIA_HOUSEKEEPING_QUEUE = 'media.housekeeping';

export interface MediaJobs {
  /** Schedules processing of `mediaId` (call after the finalize transaction committed). */
  dispatch(mediaId: number): Promise<void>;
  /** Creates the queues and starts the workers and the housekeeping schedule. */
  start(options: { workers: boolean }): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when no inline processing is queued or running (tests, benchmarks). */
  idle(): Promise<void>;
}

export function createMediaJobs(deps: { queue: Queue; processor: MediaProcessor; housekeeping: MediaHousekeeping; inline: boolean; inlineConcurrency: number; log: FastifyBaseLogger }): MediaJobs {
  const { queue, processor, log } = deps;
  const waiting: number[] = [];
  let running = 0;
  const idleWaiters: (() => void)[] = [];
  let started = false;

  function pump(): void {
    while (running < deps.inlineConcurrency && waiting.length > 0) {
      const id = waiting.shift()!;
      running++;
      processor
        .process(id)
        .catch((err: unknown) => log.error({ err, mediaId: id }, 'media processing failed; housekeeping retries it'))
        .finally(() => {
          running--;
          pump();
          if (running === 0 && waiting.length === 0) for (const w of idleWaiters.splice(0)) w();
        });
    }
  }

  return {
    async dispatch(mediaId) {
      if (deps.inline) {
        waiting.push(mediaId);
        pump();
        return;
      }
      await queue.boss.send(MEDIA_PROCESS_QUEUE, { mediaId });
    },
    async start({ workers }) {
      if (!workers || started) return;
      started = true;
      await queue.start();
      await queue.define(MEDIA_PROCESS_QUEUE, { retryLimit: 5, retryDelay: 5, retryBackoff: true });
      await queue.define(MEDIA_HOUSEKEEPING_QUEUE, { retryLimit: 0 });
      if (!deps.inline) {
        await queue.boss.work<{ mediaId: number }>(MEDIA_PROCESS_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
          if (job) await processor.process(job.data.mediaId);
        });
      }
      await queue.boss.work(MEDIA_HOUSEKEEPING_QUEUE, { batchSize: 1, pollingIntervalSeconds: 30 }, async () => {
        await deps.housekeeping.run();
      });
      await queue.boss.schedule(MEDIA_HOUSEKEEPING_QUEUE, '*/15 * * * *');
    },
    async stop() {
      await this.idle();
    },
    idle() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
