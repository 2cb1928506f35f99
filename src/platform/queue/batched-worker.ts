/**
 * A worker for a busy queue whose jobs spend most of their time waiting on another system (a message send
 * waits on the communications service): it keeps up to `concurrency` jobs running and fetches and completes
 * them in batches, so that the queue's own statements (one fetch and one completion, each costlier than the
 * job's own work) are paid once per batch instead of once per job.
 *
 * - Idle, it waits `pollingIntervalMs` or until `notify()` (a job was enqueued here), then fetches at once.
 * - After a fetch that found jobs it waits `windowMs` before fetching again, so that jobs arriving in that
 *   window share the next fetch; a job therefore waits at most about `windowMs` longer than with one
 *   worker per job.
 * - A job that succeeded is completed within `windowMs`, together with the others that finished meanwhile;
 *   it stays active until then, which only matters if the process dies in that window: the job then
 *   expires and runs again, as after any crash (handlers are idempotent).
 * - A job that failed is settled on its own, and before its slot is reused: its failure (retry or dead
 *   letter) is recorded by the time the handler's slot takes another job.
 */
export interface JobSource<J extends { id: string }> {
  /** Up to `batchSize` jobs, now active; [] when none is due (or the database could not answer). */
  fetch(batchSize: number): Promise<J[]>;
  /** Marks active jobs `ids` completed. */
  complete(ids: string[]): Promise<void>;
  /** Records the failure of active job `id` (its retry or dead letter); `error` is stored as its output. */
  fail(id: string, error: unknown): Promise<void>;
}

export interface BatchedWorkerOptions {
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs taken by one fetch, at most. Default `concurrency`. */
  batchSize?: number;
  /** Milliseconds jobs may gather before the next fetch, and successes before their completion. */
  windowMs: number;
  /** Milliseconds between polls while idle. */
  pollingIntervalMs: number;
}

export interface BatchedWorker {
  /** Jobs were enqueued: an idle worker fetches now. */
  notify(): void;
  /** Whether it waits for its next fetch with no job running. */
  readonly idle: boolean;
  /** Stops fetching; resolves once running jobs are settled and completions written. */
  stop(): Promise<void>;
}

/**
 * Starts a worker over `source` running `run` for each job; `run` rejects to fail the job. Errors of the
 * queue's own statements are given to `onError` (a completion that did not land lets the job expire and
 * run again).
 */
export function startBatchedWorker<J extends { id: string }>(
  source: JobSource<J>,
  run: (job: J) => Promise<void>,
  options: BatchedWorkerOptions,
  onError: (err: unknown) => void,
): BatchedWorker {
  const batchSize = options.batchSize ?? options.concurrency;
  let stopped = false;
  let running = 0;
  let idle = false;
  // A notify that came while the worker was not waiting (mid-fetch: the fetch may have missed that job).
  let notified = false;
  let wakeIdle: (() => void) | undefined;
  let slotFreed: (() => void) | undefined;
  const succeeded: string[] = [];
  let completionTimer: NodeJS.Timeout | undefined;
  let completing: Promise<void> = Promise.resolve();

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  function completeSucceeded(): Promise<void> {
    if (completionTimer !== undefined) clearTimeout(completionTimer);
    completionTimer = undefined;
    const ids = succeeded.splice(0);
    if (ids.length === 0) return completing;
    completing = completing.then(() => source.complete(ids)).catch(onError);
    return completing;
  }

  async function runOne(job: J): Promise<void> {
    try {
      await run(job);
      succeeded.push(job.id);
      if (succeeded.length >= batchSize) void completeSucceeded();
      else completionTimer ??= setTimeout(() => void completeSucceeded(), options.windowMs);
    } catch (err) {
      await source.fail(job.id, err).catch(onError);
    } finally {
      running--;
      slotFreed?.();
    }
  }

  const loop = (async () => {
    while (!stopped) {
      if (running >= options.concurrency) {
        await new Promise<void>((resolve) => (slotFreed = resolve));
        slotFreed = undefined;
        continue;
      }
      notified = false;
      const jobs = await source.fetch(Math.min(batchSize, options.concurrency - running));
      for (const job of jobs) {
        running++;
        void runOne(job);
      }
      if (stopped) break;
      if (jobs.length > 0) {
        await sleep(options.windowMs);
        continue;
      }
      if (notified) continue;
      idle = running === 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollingIntervalMs);
        wakeIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeIdle = undefined;
      idle = false;
    }
    while (running > 0) await new Promise<void>((resolve) => (slotFreed = resolve));
    await completeSucceeded();
  })();

  return {
    notify() {
      notified = true;
      wakeIdle?.();
    },
    get idle() {
      return idle;
    },
    async stop() {
      stopped = true;
      wakeIdle?.();
      await loop;
    },
  };
}
