/**
 * Every queue call of the media module, in one place. Processing runs on the durable queue
 * (`media.process`, pg-boss), enqueued in the transaction that finalizes the upload, or, with
 * `MEDIA_INLINE_WORKER_ENABLED`, in this process after that commit with at most `inlineConcurrency`
 * objects at once; either way a job carries the media id only. Housekeeping runs every 15 minutes on
 * the queue's schedule (`media.housekeeping`) when queue workers run, in UTC.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Queue } from '../../platform/queue/queue.js';
import type { UnitOfWork } from '../../platform/transactions/transaction.js';
import type { MediaProcessor } from './media.processor.js';
import type { MediaHousekeeping } from './media.housekeeping.js';

const MEDIA_PROCESS_QUEUE = 'media.process';
const MEDIA_HOUSEKEEPING_QUEUE = 'media.housekeeping';

declare module '../../platform/queue/queue.js' {
  interface JobMap {
    'media.process': { mediaId: number };
    'media.housekeeping': Record<string, never>;
  }
}

export interface MediaJobs {
  /**
   * Schedules processing of `mediaId` in `unit` (platform/transactions): a queue job written in its
   * transaction, or inline processing once it commits. A rollback schedules nothing.
   */
  dispatch(unit: UnitOfWork, mediaId: number): Promise<void>;
  /** Creates the queues and starts the workers and the housekeeping schedule. */
  start(options: { workers: boolean }): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when no inline processing is queued or running (tests, benchmarks). */
  idle(): Promise<void>;
}

export function createMediaJobs(deps: {
  queue: Queue;
  processor: MediaProcessor;
  housekeeping: MediaHousekeeping;
  inline: boolean;
  inlineConcurrency: number;
  log: FastifyBaseLogger;
}): MediaJobs {
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
    async dispatch(unit, mediaId) {
      if (deps.inline) {
        unit.afterCommit(() => {
          waiting.push(mediaId);
          pump();
        });
        return;
      }
      // One pending job per object: a finalize and a housekeeping re-dispatch never double it.
      await queue.enqueue(unit, MEDIA_PROCESS_QUEUE, { mediaId }, { singletonKey: `media:${mediaId}` });
    },
    async start({ workers }) {
      if (started) return;
      started = true;
      // Defined in every process (enqueueing needs it); handled only where workers run.
      await queue.define(MEDIA_PROCESS_QUEUE, { retryLimit: 5, retryDelay: 5, retryBackoff: true });
      await queue.define(MEDIA_HOUSEKEEPING_QUEUE, { retryLimit: 0 });
      if (!workers) return;
      if (!deps.inline) await queue.work(MEDIA_PROCESS_QUEUE, async ({ mediaId }) => processor.process(mediaId), { pollingIntervalSeconds: 1 });
      await queue.work(
        MEDIA_HOUSEKEEPING_QUEUE,
        async () => {
          await deps.housekeeping.run();
        },
        { pollingIntervalSeconds: 30 },
      );
      await queue.schedule(MEDIA_HOUSEKEEPING_QUEUE, '*/15 * * * *', {}, { tz: 'UTC' });
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
