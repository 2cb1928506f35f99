/**
 * The durable job queue (DESIGN "Queue, events, schedules"): pg-boss on the service's own database
 * (PostgreSQL, or PGlite through the `executeSql` adapter), with a typed job API.
 *
 * - A module declares its jobs by augmenting `JobMap`
 *   (`declare module '../../platform/queue/queue.js' { interface JobMap { 'media.process': { mediaId: number } } }`),
 *   `define`s each queue with its retry policy at registration and registers its handler with `work`.
 * - `enqueue(unit, name, data)` writes the job in the caller's unit of work: a rolled-back
 *   transaction enqueues nothing, a committed one never loses the job (no gap between commit and enqueue).
 * - Delivery is at least once: handlers re-read state by the ids in the payload, are idempotent and skip
 *   what has gone. A handler that throws `PermanentJobError` is dead-lettered at once with its reason;
 *   any other error is retried with backoff and dead-lettered once the retries are spent
 *   (vocabulary: docs/operations.md "Background jobs").
 */
import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../telemetry/tracing.js';
import { readOncePerScrape } from '../scrape-reading.js';
import PgBoss from 'pg-boss';
import type { FastifyBaseLogger } from 'fastify';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { Counter, Gauge, type Registry } from 'prom-client';
import { libraryStatementName, sqlExecutorIn, type Database, type Db } from '../../db/client.js';
import { DEAD_LETTER_COUNTS, DEAD_LETTERS, QUEUE_BACKLOG, SCHEMA, SPEND_RETRIES } from './queue.sql.js';
import { transaction, type UnitOfWork } from '../transactions/transaction.js';
import { SCHEMA_LOCK_ID } from '../../db/migrate.js';
import { AppError } from '../errors.js';
import { startBatchedWorker, type BatchedWorker } from './batched-worker.js';

/** Every job of the service by queue name, with its payload (ids only). Modules augment it. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JobMap {}

/**
 * A failure that retrying cannot fix (the record is invalid, the provider refused the message for
 * good): the job goes to its dead-letter queue at once with `message` as its reason, without retries.
 */
export class PermanentJobError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'PermanentJobError';
  }
}

/** HTTP-style statuses of an `AppError` that a later attempt may not meet (timeouts, conflicts, locks, rate limits). */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 423, 425, 429]);

/**
 * Whether retrying `err` cannot help (docs/operations.md "Background jobs"): a `PermanentJobError`; an
 * `AppError` of a 4xx status other than 408/409/423/425/429 (validation, an identity that cannot be valid, a
 * reference that does not exist); a `SyntaxError` (unparseable input); a database refusal of the data itself
 * (SQLSTATE class 22, data exception; 23502, 23514: a value the schema forbids; 23503: a missing reference).
 * Connection losses, timeouts, serialization failures, deadlocks and every other error count as transient.
 */
export function isPermanentFailure(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 5; depth++) {
    if (current instanceof PermanentJobError || current instanceof SyntaxError) return true;
    if (current instanceof AppError && current.status >= 400 && current.status < 500 && !RETRYABLE_CLIENT_STATUSES.has(current.status)) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('22') || code === '23502' || code === '23514' || code === '23503')) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** How a queue retries; applied to jobs enqueued from then on. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 dead-letters on the first failure. Default 5. */
  retryLimit?: number;
  /** Seconds before the first retry. Default 2. */
  retryDelay?: number;
  /** Doubles the delay on every retry, with jitter. Default true. */
  retryBackoff?: boolean;
  /** Seconds an attempt may run before it counts as failed. Default 900. */
  expireInSeconds?: number;
  /** pg-boss queue policy; `short` keeps at most one waiting job per `singletonKey`. Default `standard`. */
  policy?: 'standard' | 'short' | 'singleton' | 'stately';
}

interface EnqueueOptions {
  /** With policy `short`/`singleton`/`stately`: the deduplication key (e.g. an outbound message id). */
  singletonKey?: string;
  /** Not before this time, or this many seconds from now. */
  startAfter?: Date | number;
  /** Higher runs first. Default 0. */
  priority?: number;
}

export interface JobContext {
  id: string;
  queue: string;
  /** 1 on the first attempt. */
  attempt: number;
  /** Retries the job may still get after the first attempt, in total. */
  retryLimit: number;
}

type JobHandler<D> = (data: D, job: JobContext) => Promise<void>;

export interface WorkOptions {
  /** Seconds between polls when idle (at least 0.5). Default 2; `wake` cuts the wait short locally. */
  pollingIntervalSeconds?: number;
  /** Jobs of this queue run at once in this process. Default 1. */
  concurrency?: number;
  /**
   * Above 1: one worker keeps `concurrency` jobs running and fetches and completes them up to this many at
   * a time (`batched-worker.ts`), instead of one pg-boss worker per running job fetching and completing
   * each job alone; for busy queues whose jobs mostly wait on another system. Default 1.
   */
  batchSize?: number;
  /** With `batchSize`: milliseconds jobs gather before a fetch, and successes before their completion. Default 20. */
  batchWindowMs?: number;
}

/** A job that failed for good, as operators see it. */
interface DeadLetter {
  /** Id of the dead-letter job (not of the failed one). */
  id: string;
  /** The queue the job failed in. */
  queue: string;
  data: unknown;
  reason: string;
  /** True when the handler declared the failure permanent (no retry was tried). */
  permanent: boolean;
  /** Attempts made, when known (null for jobs that timed out while active). */
  attempts: number | null;
  deadLetteredAt: Date;
}

interface ScheduledJob {
  name: string;
  cron: string;
  timezone: string;
  data: unknown;
}

/** The queue of the service, typed by `M` (`JobMap` for modules). */
export interface Queue<M extends object = JobMap> {
  /** Starts polling for every queue given to `work` (now and later). Idempotent. */
  start(): Promise<void>;
  /** Stops polling, waits up to `timeoutMs` for running jobs, and for the queue's own statements to settle. */
  stop(timeoutMs?: number): Promise<void>;
  /** Creates `name` and its dead-letter queue `<name>.dead-letter` if missing, and applies `policy`. */
  define<K extends keyof M & string>(name: K, policy?: RetryPolicy): Promise<void>;
  /** Registers the handler of a defined queue; it runs once the queue is started. */
  work<K extends keyof M & string>(name: K, handler: JobHandler<M[K]>, options?: WorkOptions): Promise<void>;
  /**
   * Writes a job in `at` and returns its id, or null when a `singletonKey` deduplicated it. `at` is a
   * change's unit of work (platform/transactions: the local worker is woken after the commit) or the
   * database, for work not caused by a change (woken at once). Throws when `name` was not defined in this
   * process, and for a bare transaction (`tx` instead of its unit).
   */
  enqueue<K extends keyof M & string>(at: UnitOfWork | Db, name: K, data: M[K], options?: EnqueueOptions): Promise<string | null>;
  /** Makes one idle worker of `name` in this process poll now instead of at its next interval. */
  wake(name: keyof M & string): void;
  /** Enqueues `data` on `name` at every `cron` time in the IANA time zone `tz`; replaces an earlier schedule. */
  schedule<K extends keyof M & string>(name: K, cron: string, data: M[K], options: { tz: string }): Promise<void>;
  unschedule(name: keyof M & string): Promise<void>;
  schedules(): Promise<ScheduledJob[]>;
  /** Dead-lettered jobs, newest first, of one queue or of all defined ones (default 100). */
  deadLetters(options?: { queue?: keyof M & string; limit?: number }): Promise<DeadLetter[]>;
  /**
   * Adds `queue_jobs_total{queue,outcome}`, `queue_dead_letter_jobs{queue}`, `queue_jobs_waiting{queue}` and
   * `queue_oldest_job_age_seconds{queue}` to `registry`.
   */
  registerMetrics(registry: Registry): void;
}

export interface QueueOptions {
  /** Whether this process runs workers, maintenance and cron (false: it only enqueues). Default true. */
  runWorkers?: boolean;
  /** Seconds between maintenance runs (expiry of jobs whose process died, archiving). Default 30. */
  maintenanceIntervalSeconds?: number;
}

const DEAD_LETTER_SUFFIX = '.dead-letter';

/**
 * `expireInSeconds` for a queue whose attempt is a few statements and one outbound call bounded by
 * `callTimeoutMs`: an attempt still running after three such timeouts died with its process (at least 10 s).
 */
export function attemptExpiryAfterCall(callTimeoutMs: number): number {
  return Math.max(10, Math.ceil((3 * callTimeoutMs) / 1000));
}

/** A worker of this process: `busy` while it cannot fetch at once; `notify` makes an idle one fetch now. */
interface LocalWorker {
  readonly busy: boolean;
  notify(): void;
}

interface Worked {
  name: string;
  handler: JobHandler<unknown>;
  options: WorkOptions;
}

/** What a failed attempt records as the job's output (and its dead letter's, when it is the last). */
interface FailureOutput {
  reason: string;
  permanent: boolean;
  attempt: number;
  queue: string;
  jobId: string;
}

/** A failed attempt as thrown back to pg-boss, which stores its JSON form (the output) and no stack. */
class FailedAttempt extends Error {
  constructor(readonly output: FailureOutput) {
    super(output.reason);
  }

  toJSON(): FailureOutput {
    return this.output;
  }
}

/** Creates the queue on `database`; nothing touches the database until `define` or `start`. */
export function createQueue(database: Database, log: FastifyBaseLogger, options: QueueOptions = {}): Queue {
  const runWorkers = options.runWorkers ?? true;
  // Statements of pg-boss's own (polls, completions) still running: stop() waits for them so that the
  // database is never closed under one.
  let pending = 0;
  let activeJobs = 0;
  const boss = new PgBoss({
    db: {
      async executeSql(text, values) {
        pending++;
        try {
          const name = libraryStatementName(text, values);
          if (name === undefined) return await database.executeSql(text, values as unknown[] | undefined);
          return { rows: await database.preparedQuery<Record<string, unknown>>(name, text, values as unknown[]) };
        } finally {
          pending--;
        }
      },
    },
    schema: SCHEMA,
    supervise: runWorkers,
    schedule: runWorkers,
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
    // Remember completed jobs long enough for operators to inspect them; webhook dedup lives in the inbox.
    archiveCompletedAfterSeconds: 3600,
  });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));

  const defined = new Map<string, RetryPolicy>();
  const worked: Worked[] = [];
  const workers = new Map<string, LocalWorker[]>();
  const batchedWorkers: BatchedWorker[] = [];
  const wakeCursor = new Map<string, number>();
  let booting: Promise<unknown> | undefined;
  let running = false;

  const jobs = new Counter({
    name: 'queue_jobs_total',
    help: 'Job attempts finished in this process, by queue and outcome (completed, retried, dead_lettered)',
    labelNames: ['queue', 'outcome'] as const,
    registers: [],
  });
  // Jobs due and not yet started, per queue: the backlog and how long its oldest job has waited.
  const readBacklog = readOncePerScrape(
    async () => {
      const { rows } = await database.executeSql(QUEUE_BACKLOG.text, [[...defined.keys()]]);
      return new Map(rows.map((r) => [String(r.name), { waiting: Number(r.n), ageSeconds: Math.max(0, Number(r.age)) }]));
    },
    (err) => {
      log.warn({ err }, 'queue backlog unavailable');
      return new Map<string, { waiting: number; ageSeconds: number }>();
    },
  );
  /** A per-queue gauge of the scrape's backlog reading. */
  const backlogGauge = (name: string, help: string, pick: (b: { waiting: number; ageSeconds: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'] as const,
      registers: [],
      async collect() {
        this.reset();
        if (defined.size === 0) return;
        const backlog = await readBacklog();
        for (const queueName of defined.keys()) this.set({ queue: queueName }, pick(backlog.get(queueName) ?? { waiting: 0, ageSeconds: 0 }));
      },
    });
  const waitingGauge = backlogGauge(
    'queue_jobs_waiting',
    'Jobs due and not yet started, per queue (the backlog; jobs delayed to a later time are not counted)',
    (b) => b.waiting,
  );
  const ageGauge = backlogGauge(
    'queue_oldest_job_age_seconds',
    'Seconds the oldest due job of each queue has waited to start; 0 when none waits',
    (b) => b.ageSeconds,
  );
  const deadLetterGauge = new Gauge({
    name: 'queue_dead_letter_jobs',
    help: 'Jobs waiting in the dead-letter queue of each queue',
    labelNames: ['queue'] as const,
    registers: [],
    async collect() {
      this.reset();
      if (defined.size === 0) return;
      try {
        const { rows } = await database.executeSql(DEAD_LETTER_COUNTS.text, [[...defined.keys()].map((n) => n + DEAD_LETTER_SUFFIX)]);
        const counts = new Map(rows.map((r) => [String(r.name), Number(r.n)]));
        for (const name of defined.keys()) this.set({ queue: name }, counts.get(name + DEAD_LETTER_SUFFIX) ?? 0);
      } catch (err) {
        log.warn({ err }, 'dead-letter count unavailable');
      }
    },
  });

  /** Installs or migrates pg-boss's schema once per process (and starts its timers when running workers). */
  function boot(): Promise<unknown> {
    booting ??= boss.start().catch((err: unknown) => {
      booting = undefined;
      throw err;
    });
    return booting;
  }

  /** Whether queue `name` is missing or differs from `wanted` (fields left undefined are not compared). */
  async function needsDefinition(name: string, wanted: PgBoss.Queue): Promise<boolean> {
    const current = (await boss.getQueue(name)) as (PgBoss.QueueResult & Record<string, unknown>) | null;
    if (current === null) return true;
    const fields = ['policy', 'retryLimit', 'retryDelay', 'retryBackoff', 'expireInSeconds', 'deadLetter'] as const;
    return fields.some((f) => wanted[f] !== undefined && current[f] !== wanted[f]);
  }

  /**
   * Runs pg-boss queue definitions in one transaction holding the schema advisory lock that migrations take
   * (`SCHEMA_LOCK_ID`): pg-boss creates a queue's partition with DDL on shared tables, and two instances
   * doing so at once deadlocked (40P01). A deadlock or lock timeout met anyway (a database whose other
   * clients do DDL of their own) is tried again, up to 5 times.
   */
  async function defineUnderSchemaLock(run: (scoped: PgBoss) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await transaction(database.db, async ({ tx }) => {
          const executor = sqlExecutorIn(tx);
          await executor.executeSql('select pg_advisory_xact_lock($1)', [SCHEMA_LOCK_ID]);
          // A pg-boss instance of this transaction's connection: its queue API, never started.
          await run(new PgBoss({ db: executor, schema: SCHEMA, supervise: false, schedule: false }));
        });
        return;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (attempt >= 5 || (code !== '40P01' && code !== '55P03')) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }

  function assertDefined(name: string): void {
    if (!defined.has(name)) throw new Error(`queue ${name} is not defined; call queue.define('${name}') at registration`);
  }

  /**
   * Records a failed attempt and returns it as pg-boss is to store it. The job is still active
   * here: a permanent failure spends its retries now so that pg-boss dead-letters it at once.
   */
  async function recordFailure(name: string, job: PgBoss.JobWithMetadata<unknown>, err: unknown): Promise<FailedAttempt> {
    const permanent = isPermanentFailure(err);
    const deadLettered = permanent || job.retryCount >= job.retryLimit;
    const output: FailureOutput = {
      reason: err instanceof Error ? err.message : String(err),
      permanent,
      attempt: job.retryCount + 1,
      queue: name,
      jobId: job.id,
    };
    if (permanent) await boss.getDb().executeSql(SPEND_RETRIES.text, [name, job.id]);
    jobs.inc({ queue: name, outcome: deadLettered ? 'dead_lettered' : 'retried' });
    const fields = { queue: name, jobId: job.id, attempt: output.attempt };
    // A failure retrying cannot cure is the data's, not the code's: one line with its reason, no stack.
    if (permanent) log.warn({ ...fields, reason: output.reason }, 'job failed permanently: dead-lettered');
    else if (deadLettered) log.error({ ...fields, err }, 'job failed after its last retry: dead-lettered');
    else log.warn({ ...fields, err }, 'job failed: will retry');
    return new FailedAttempt(output);
  }

  /**
   * Runs one attempt. A failure is thrown on to pg-boss as our compact output (never failed here):
   * pg-boss settles every job it handed out with one statement it does not await, so a job settled
   * here could be fetched again before that statement ran, and the late completion would then close
   * the retry while it runs.
   */
  async function runJob(spec: Worked, job: PgBoss.JobWithMetadata<unknown>): Promise<void> {
    activeJobs++;
    const attempt = job.retryCount + 1;
    try {
      await inSpan(
        `job ${spec.name}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: { 'messaging.system': 'pg-boss', 'messaging.destination.name': spec.name, 'messaging.message.id': job.id, 'job.attempt': attempt },
        },
        () => spec.handler(job.data, { id: job.id, queue: spec.name, attempt, retryLimit: job.retryLimit }),
      );
      jobs.inc({ queue: spec.name, outcome: 'completed' });
    } catch (err) {
      throw await recordFailure(spec.name, job, err);
    } finally {
      activeJobs--;
    }
  }

  async function startWorkers(spec: Worked): Promise<void> {
    const list = workers.get(spec.name) ?? [];
    workers.set(spec.name, list);
    if ((spec.options.batchSize ?? 1) > 1) {
      list.push(startBatched(spec));
      return;
    }
    for (let i = 0; i < (spec.options.concurrency ?? 1); i++) {
      const workOptions: PgBoss.WorkOptions & { includeMetadata: true } = { batchSize: 1, includeMetadata: true };
      if (spec.options.pollingIntervalSeconds !== undefined) workOptions.pollingIntervalSeconds = spec.options.pollingIntervalSeconds;
      let busy = false;
      const id = await boss.work<unknown>(spec.name, workOptions, async ([job]) => {
        if (!job) return;
        busy = true;
        // pg-boss 10 sleeps a polling interval after every fetch, even a fruitful one: while there is
        // work, fetch again at once; only an empty fetch waits for the interval (or a wake).
        try {
          await runJob(spec, job);
        } finally {
          busy = false;
          boss.notifyWorker(id);
        }
      });
      list.push({
        get busy() {
          return busy;
        },
        notify: () => boss.notifyWorker(id),
      });
    }
  }

  /** The one batched worker of a queue worked with `batchSize` > 1; it settles every job itself. */
  function startBatched(spec: Worked): LocalWorker {
    const name = spec.name;
    const worker = startBatchedWorker<PgBoss.JobWithMetadata<unknown>>(
      {
        fetch: async (batchSize) => (await boss.fetch(name, { batchSize, includeMetadata: true })) ?? [],
        complete: async (ids) => void (await boss.complete(name, ids)),
        fail: async (id, error) => void (await boss.fail(name, id, error as object)),
      },
      (job) => runJob(spec, job),
      {
        concurrency: spec.options.concurrency ?? 1,
        batchSize: spec.options.batchSize!,
        windowMs: spec.options.batchWindowMs ?? 20,
        pollingIntervalMs: (spec.options.pollingIntervalSeconds ?? 2) * 1000,
      },
      (err) => log.error({ err, queue: name }, 'job queue error'),
    );
    batchedWorkers.push(worker);
    return {
      get busy() {
        return !worker.idle;
      },
      notify: () => worker.notify(),
    };
  }

  /**
   * Wakes one idle worker of `name` per job enqueued, not all of them: every woken worker runs pg-boss's
   * fetch, and waking a queue's whole pool for one job made the empty fetches outnumber the jobs. With
   * no idle worker, a busy one fetches again as soon as its job is done.
   */
  function wake(name: string): void {
    const list = workers.get(name);
    if (list === undefined || list.length === 0) return;
    const cursor = wakeCursor.get(name) ?? 0;
    for (let i = 0; i < list.length; i++) {
      const worker = list[(cursor + i) % list.length]!;
      if (worker.busy) continue;
      wakeCursor.set(name, (cursor + i + 1) % list.length);
      worker.notify();
      return;
    }
    list[cursor % list.length]!.notify();
  }

  const queue: Queue<Record<string, object>> = {
    async start() {
      if (running) return;
      if (!runWorkers) throw new Error('this queue was created with runWorkers: false');
      await boot();
      running = true;
      for (const spec of worked) await startWorkers(spec);
    },

    async stop(timeoutMs = 10_000) {
      if (booting === undefined) return;
      const deadline = Date.now() + timeoutMs;
      running = false;
      workers.clear();
      try {
        await booting;
      } catch {
        return;
      }
      const stopping = batchedWorkers.splice(0).map((w) => w.stop());
      await Promise.race([Promise.all(stopping), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
      booting = undefined;
      await boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
      // A poll that was under way when the workers stopped may still hand over a job, and pg-boss
      // completes jobs without awaiting it: wait until nothing of the queue's is left running.
      while ((pending > 0 || activeJobs > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    },

    async define(name, policy = {}) {
      await boot();
      const deadLetter = name + DEAD_LETTER_SUFFIX;
      const settings: PgBoss.Queue = {
        name,
        policy: policy.policy ?? 'standard',
        retryLimit: policy.retryLimit ?? 5,
        retryDelay: policy.retryDelay ?? 2,
        retryBackoff: policy.retryBackoff ?? true,
        deadLetter,
        ...(policy.expireInSeconds !== undefined ? { expireInSeconds: policy.expireInSeconds } : {}),
      };
      // A queue already defined as wanted is left alone: a read, no lock, so that instances starting together
      // (or beside running ones) do not queue up behind each other's DDL.
      if (!(await needsDefinition(deadLetter, { name: deadLetter, retryLimit: 0 })) && !(await needsDefinition(name, settings))) {
        defined.set(name, policy);
        return;
      }
      await defineUnderSchemaLock(async (scoped) => {
        await scoped.createQueue(deadLetter, { name: deadLetter, retryLimit: 0 });
        await scoped.createQueue(name, settings);
        // createQueue leaves an existing queue as it was: apply a policy changed since.
        await scoped.updateQueue(name, settings);
      });
      defined.set(name, policy);
    },

    async work(name, handler, options = {}) {
      assertDefined(name);
      const spec: Worked = { name, handler: handler as JobHandler<unknown>, options };
      worked.push(spec);
      if (running) await startWorkers(spec);
    },

    async enqueue(at, name, data, options = {}) {
      assertDefined(name);
      const unit = 'afterCommit' in at ? at : undefined;
      // A bare transaction would commit the job with nobody to wake its worker: a change passes its unit.
      if (!unit && at instanceof PgTransaction)
        throw new Error('enqueue needs the unit of work of a transaction opened with transaction() from platform/transactions');
      const send: PgBoss.SendOptions = { db: sqlExecutorIn(unit ? unit.tx : (at as Db)) };
      if (options.singletonKey !== undefined) send.singletonKey = options.singletonKey;
      if (options.startAfter !== undefined) send.startAfter = options.startAfter;
      if (options.priority !== undefined) send.priority = options.priority;
      const id = await boss.send(name, data, send);
      if (unit) unit.afterCommit(() => wake(name));
      else wake(name);
      return id;
    },

    wake,

    async schedule(name, cron, data, { tz }) {
      assertDefined(name);
      // cron-parser quietly falls back to UTC for a zone it does not know; Intl throws a RangeError.
      new Intl.DateTimeFormat('en', { timeZone: tz });
      await boss.schedule(name, cron, data, { tz });
    },

    async unschedule(name) {
      await boot();
      await boss.unschedule(name);
    },

    async schedules() {
      await boot();
      const rows = (await boss.getSchedules()) as unknown as { name: string; cron: string; timezone: string; data: unknown }[];
      return rows.map((r) => ({ name: r.name, cron: r.cron, timezone: r.timezone, data: r.data }));
    },

    async deadLetters({ queue: only, limit = 100 } = {}) {
      const names = only !== undefined ? [only] : [...defined.keys()];
      if (names.length === 0) return [];
      const { rows } = await database.executeSql(DEAD_LETTERS.text, [names.map((n) => n + DEAD_LETTER_SUFFIX), limit]);
      return rows.map((row) => toDeadLetter(row));
    },

    registerMetrics(registry) {
      registry.registerMetric(jobs);
      registry.registerMetric(deadLetterGauge);
      registry.registerMetric(waitingGauge);
      registry.registerMetric(ageGauge);
    },
  };
  // The implementation is untyped by job name; callers see the augmented JobMap.
  return queue as unknown as Queue;
}

function toDeadLetter(row: Record<string, unknown>): DeadLetter {
  const output = (row.output ?? {}) as Partial<FailureOutput> & { value?: { message?: string }; message?: string };
  const name = String(row.name);
  return {
    id: String(row.id),
    queue: name.slice(0, -DEAD_LETTER_SUFFIX.length),
    data: row.data,
    // pg-boss's own failures (an attempt that ran past its expiry) carry a message instead of our reason.
    reason: output.reason ?? output.value?.message ?? output.message ?? 'unknown',
    permanent: output.permanent === true,
    attempts: typeof output.attempt === 'number' ? output.attempt : null,
    deadLetteredAt: new Date(row.created_on as string | Date),
  };
}
