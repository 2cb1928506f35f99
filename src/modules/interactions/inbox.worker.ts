/**
 * The inline worker (SPEC "Inbound webhook processing order", step 5). The webhook hands it the ids of
 * freshly committed inbox rows; it applies them with bounded concurrency, one at a time per chat (so a
 * conversation's events apply in arrival order), and publishes effects after commit. A sweeper claims
 * pending rows that are due (retries with exponential backoff, and rows left behind by a process that
 * stopped or died) every `sweepIntervalMs`; rows are claimed with FOR UPDATE SKIP LOCKED and marked
 * processed in the projection's transaction, so any number of workers and instances never apply one
 * event twice. After `maxAttempts` failures a row moves to the dead-letter list with its error.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { Realtime } from '../../platform/realtime/gateway.js';
import * as inboxRepo from './inbox.repository.js';
import { applyEvent, type Effects } from './projection.service.js';
import type { CanonicalEvent } from './canonical.js';
import { publishEffects } from './effects.js';

export interface WorkerOptions {
  concurrency: number;
  maxAttempts: number;
  /** First retry delay; doubled per attempt, capped at 5 minutes. */
  retryBaseDelayMs: number;
  sweepIntervalMs: number;
  /** Days a processed event id is remembered for deduplication (at least 8). */
  retentionDays: number;
}

export interface InboxWorker {
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
  realtime: Realtime;
  log: FastifyBaseLogger;
  options: WorkerOptions;
}

export function createInboxWorker(deps: WorkerDeps): InboxWorker {
  const options = { ...deps.options };
  const chains = new Map<string, Promise<void>>();
  const queued = new Set<number>();
  let running = 0;
  const waiters: (() => void)[] = [];
  let active = 0;
  const idleWaiters: (() => void)[] = [];
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let sweeping = false;
  let lastPurge = 0;

  const acquire = async () => {
    if (running < options.concurrency) {
      running++;
      return;
    }
    await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const release = () => {
    const next = waiters.shift();
    if (next) next();
    else running--;
  };
  const settle = () => {
    active--;
    if (active === 0) for (const w of idleWaiters.splice(0)) w();
  };

  async function processOne(id: number): Promise<void> {
    let effects: Effects | null;
    try {
      effects = await deps.db.transaction(async (tx) => {
        const row = await inboxRepo.claim(tx, id);
        if (!row) return null;
        const result = await applyEvent(tx, row.event as CanonicalEvent);
        if (result.outcome === 'unroutable') {
          await inboxRepo.markOutcome(tx, id, 'unroutable', null);
          return null;
        }
        await inboxRepo.markOutcome(tx, id, 'processed', result.entityId);
        return result.effects;
      });
    } catch (err) {
      deps.log.warn({ err, inboxId: id }, 'inbound event processing failed');
      try {
        await inboxRepo.recordFailure(deps.db, id, err instanceof Error ? err.message : String(err), options.maxAttempts, options.retryBaseDelayMs);
      } catch (recordErr) {
        deps.log.error({ err: recordErr, inboxId: id }, 'could not record the failure; the sweeper will retry');
      }
      return;
    }
    if (effects) await publish(effects);
  }

  const publish = (effects: Effects) => publishEffects(deps, effects);

  function dispatch(items: { id: number; chatKey: string }[]): void {
    for (const { id, chatKey } of items) {
      if (stopped || queued.has(id)) continue;
      queued.add(id);
      active++;
      const prev = chains.get(chatKey) ?? Promise.resolve();
      const next = prev
        .then(async () => {
          await acquire();
          try {
            if (!stopped) await processOne(id);
          } finally {
            release();
          }
        })
        .catch((err: unknown) => deps.log.error({ err }, 'inbox worker failure'))
        .finally(() => {
          queued.delete(id);
          settle();
          if (chains.get(chatKey) === next) chains.delete(chatKey);
        });
      chains.set(chatKey, next);
    }
  }

  async function sweep(recover = false): Promise<number> {
    if (stopped || sweeping) return 0;
    sweeping = true;
    try {
      const rows = await inboxRepo.dueRows(deps.db, 500, recover);
      dispatch(rows.map((r) => ({ id: r.id, chatKey: `${r.platform}:${r.accountExternalId}:${r.externalChatId ?? ''}` })));
      if (Date.now() - lastPurge > 3_600_000) {
        lastPurge = Date.now();
        await inboxRepo.purgeProcessed(deps.db, options.retentionDays);
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
