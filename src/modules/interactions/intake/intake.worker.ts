/**
 * The inline worker (SPEC "Inbound webhook processing order", step 5). The webhook hands it the ids of
 * freshly committed inbox rows; it applies them in batches (inbox.batch.ts: one transaction for up to
 * `batchSize` rows of distinct chats) with at most `concurrency` transactions at once, so the webhook's
 * inserts always find a free connection. A chat has at most one event in flight, so a conversation's
 * events apply in arrival order. What they change is published after commit. A sweeper claims
 * pending rows that are due (retries with exponential backoff, and rows left behind by a process that
 * stopped or died) every `sweepIntervalMs`; rows are claimed with FOR UPDATE SKIP LOCKED and marked
 * processed in the transaction that applies them, so any number of workers and instances never apply one
 * event twice. After `maxAttempts` failures a row moves to the dead-letter list with its error.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import * as intakeRepo from './intake.repository.js';
import { processBatch } from './intake.batch.js';
import type { SlaClocks } from '../service-levels/index.js';

interface WorkerOptions {
  /** Transactions applying events at once (keep it below the connection pool size). */
  concurrency: number;
  /** Inbox rows (of distinct chats) applied in one transaction. */
  batchSize: number;
  maxAttempts: number;
  /** First retry delay; doubled per attempt, capped at 5 minutes. */
  retryBaseDelayMs: number;
  sweepIntervalMs: number;
  /** Days a processed event id is remembered for deduplication (at least 8). */
  retentionDays: number;
}

export interface IntakeWorker {
  /** Queues inbox ids for immediate processing; `chatKey` serializes one chat's events. */
  dispatch(items: { id: number; chatKey: string }[]): void;
  start(): void;
  /** Stops taking work and waits for what is running. Pending rows stay for the next start. */
  stop(): Promise<void>;
  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Runs one sweep now; returns the number of rows dispatched. `recover` also takes rows never tried
   * (work a stopped process accepted but did not start), as `start()` does.
   */
  sweep(recover?: boolean): Promise<number>;
  configure(options: Partial<WorkerOptions>): void;
}

export interface WorkerDeps {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  log: FastifyBaseLogger;
  /** The SLA clocks a customer's message moves, in the batch's transaction. */
  sla: SlaClocks;
  options: WorkerOptions;
}

export function createIntakeWorker(deps: WorkerDeps): IntakeWorker {
  const options = { ...deps.options };
  /** Ids waiting per chat, in arrival order. */
  const waiting = new Map<string, number[]>();
  /** Chats with waiting ids and nothing in flight, oldest first. */
  const ready = new Set<string>();
  /** Chats with an event in flight. */
  const busy = new Set<string>();
  const queued = new Set<number>();
  let running = 0;
  let active = 0;
  const idleWaiters: (() => void)[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let sweeping = false;
  let lastPurge = 0;

  const finished = (count: number) => {
    active -= count;
    if (active === 0) for (const w of idleWaiters.splice(0)) w();
  };

  function pump(): void {
    while (running < options.concurrency && ready.size > 0) {
      const batch: { id: number; chatKey: string }[] = [];
      for (const chatKey of ready) {
        if (batch.length >= options.batchSize) break;
        ready.delete(chatKey);
        const ids = waiting.get(chatKey)!;
        batch.push({ id: ids.shift()!, chatKey });
        if (ids.length === 0) waiting.delete(chatKey);
        busy.add(chatKey);
      }
      running++;
      void run(batch);
    }
  }

  async function run(batch: { id: number; chatKey: string }[]): Promise<void> {
    try {
      if (!stopped)
        await processBatch(
          deps,
          batch.map((b) => b.id),
          options,
        );
    } catch (err) {
      deps.log.error({ err }, 'inbox worker failure');
    } finally {
      running--;
      for (const { id, chatKey } of batch) {
        queued.delete(id);
        busy.delete(chatKey);
        if (waiting.has(chatKey)) ready.add(chatKey);
      }
      finished(batch.length);
      pump();
    }
  }

  function dispatch(items: { id: number; chatKey: string }[]): void {
    for (const { id, chatKey } of items) {
      if (stopped || queued.has(id)) continue;
      queued.add(id);
      active++;
      const ids = waiting.get(chatKey);
      if (ids) ids.push(id);
      else waiting.set(chatKey, [id]);
      if (!busy.has(chatKey)) ready.add(chatKey);
    }
    pump();
  }

  async function sweep(recover = false): Promise<number> {
    if (stopped || sweeping) return 0;
    sweeping = true;
    try {
      const rows = await intakeRepo.dueRows(deps.db, 500, recover);
      dispatch(rows);
      if (Date.now() - lastPurge > 3_600_000) {
        lastPurge = Date.now();
        await intakeRepo.purgeProcessed(deps.db, options.retentionDays);
      }
      return rows.length;
    } catch (err) {
      deps.log.error({ err }, 'inbox sweep failed');
      return 0;
    } finally {
      sweeping = false;
    }
  }

  const schedule = () => {
    if (timer) clearInterval(timer);
    timer = setInterval(() => void sweep(), options.sweepIntervalMs);
    timer.unref();
  };

  return {
    dispatch,
    start() {
      stopped = false;
      schedule();
      void sweep(true);
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await this.idle();
    },
    idle() {
      if (active === 0 && !sweeping) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const check = () => (sweeping ? setTimeout(check, 5) : active === 0 ? resolve() : idleWaiters.push(check));
        check();
      });
    },
    sweep,
    configure(partial) {
      Object.assign(options, partial);
      if (partial.sweepIntervalMs !== undefined && timer) schedule();
    },
  };
}
