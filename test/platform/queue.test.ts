/**
 * The durable job queue through the app's own queue (pg-boss on the test database): jobs enqueued on a
 * transaction live and die with it, permanent failures dead-letter at once, transient ones are retried
 * then dead-lettered, both visible to operators and in /metrics, and schedules keep their time zone.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { PermanentJobError, type JobContext, type Queue } from '../../src/platform/queue/queue.js';
import { transaction } from '../../src/platform/transactions/transaction.js';

interface TestJobs {
  'test.note': { noteId: number };
  'test.permanent': { contactId: number };
  'test.transient': { messageId: number };
  'test.flaky': { messageId: number };
  'test.retried-burst': { messageId: number };
  'test.woken': { sentAt: number };
  'test.report': { entityId: number };
  'test.backlog': { n: number };
  'test.batched': { n: number };
  'test.batched-woken': { sentAt: number };
}

let t: TestContext;
let queue: Queue<TestJobs>;
const FAST = { pollingIntervalSeconds: 0.5 };

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  queue = t.app.ctx.queue as unknown as Queue<TestJobs>;
});
afterAll(async () => t.close());

async function jobRows(name: string): Promise<{ state: string; data: unknown }[]> {
  const { rows } = await t.database.executeSql('select state, data from pgboss.job where name = $1', [name]);
  return rows as { state: string; data: unknown }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('enqueue on the caller transaction', () => {
  it('never runs a job whose transaction rolled back, and runs a committed one exactly once', async () => {
    const seen: number[] = [];
    await queue.define('test.note', { retryLimit: 0 });
    await queue.work('test.note', async ({ noteId }) => void seen.push(noteId), FAST);

    await expect(
      transaction(t.database.db, async (unit) => {
        await queue.enqueue(unit, 'test.note', { noteId: 1 });
        throw new Error('the change was refused');
      }),
    ).rejects.toThrow('the change was refused');
    await transaction(t.database.db, async (unit) => {
      await queue.enqueue(unit, 'test.note', { noteId: 2 });
    });

    await vi.waitFor(() => expect(seen).toEqual([2]), { timeout: 5000 });
    // The rolled-back job has no row to run from, and the committed one, once completed, is never run again:
    // then nothing else can arrive.
    await vi.waitFor(async () => expect(await jobRows('test.note')).toEqual([{ state: 'completed', data: { noteId: 2 } }]));
    expect(seen).toEqual([2]);
  });

  it('wakes the local worker after the commit instead of waiting for its next poll', async () => {
    const latencies: number[] = [];
    await queue.define('test.woken', { retryLimit: 0 });
    await queue.work('test.woken', async ({ sentAt }) => void latencies.push(Date.now() - sentAt), { pollingIntervalSeconds: 60 });
    // Let the worker's first (empty) poll pass: from now on it sleeps a minute unless woken.
    await sleep(300);
    for (let i = 0; i < 3; i++) {
      await transaction(t.database.db, async (unit) => {
        await queue.enqueue(unit, 'test.woken', { sentAt: Date.now() });
      });
      await vi.waitFor(() => expect(latencies).toHaveLength(i + 1), { timeout: 5000 });
    }
    expect(Math.max(...latencies)).toBeLessThan(2000);
  });

  it('refuses a queue that was never defined', async () => {
    await expect(
      transaction(t.database.db, async (unit) => {
        await (queue as unknown as Queue<{ 'test.unknown': object }>).enqueue(unit, 'test.unknown', {});
      }),
    ).rejects.toThrow(/not defined/);
  });
});

describe('failures', () => {
  it('dead-letters a permanent failure at once with its reason, without retrying it', async () => {
    const attempts: JobContext[] = [];
    await queue.define('test.permanent', { retryLimit: 3, retryDelay: 0, retryBackoff: false });
    await queue.work(
      'test.permanent',
      async (_data, job) => {
        attempts.push(job);
        throw new PermanentJobError('contact 7 has no phone number');
      },
      FAST,
    );
    await transaction(t.database.db, async (unit) => void (await queue.enqueue(unit, 'test.permanent', { contactId: 7 })));

    await vi.waitFor(async () => expect(await queue.deadLetters({ queue: 'test.permanent' })).toHaveLength(1), { timeout: 5000 });
    const [dead] = await queue.deadLetters({ queue: 'test.permanent' });
    expect(dead).toMatchObject({ queue: 'test.permanent', data: { contactId: 7 }, reason: 'contact 7 has no phone number', permanent: true, attempts: 1 });
    // A job that would be retried is in state retry; once failed, pg-boss never starts it again.
    await vi.waitFor(async () => expect(await jobRows('test.permanent')).toEqual([{ state: 'failed', data: { contactId: 7 } }]), { timeout: 5000 });
    expect(attempts.map((a) => a.attempt)).toEqual([1]);

    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('queue_dead_letter_jobs{queue="test.permanent"} 1');
    expect(metrics).toContain('queue_jobs_total{queue="test.permanent",outcome="dead_lettered"} 1');
  });

  it('retries a transient failure, then dead-letters it once the retries are spent', async () => {
    const attempts: number[] = [];
    await queue.define('test.transient', { retryLimit: 2, retryDelay: 0, retryBackoff: false });
    await queue.work(
      'test.transient',
      async (_data, job) => {
        attempts.push(job.attempt);
        throw new Error('provider timed out');
      },
      FAST,
    );
    await transaction(t.database.db, async (unit) => void (await queue.enqueue(unit, 'test.transient', { messageId: 11 })));

    await vi.waitFor(async () => expect(await queue.deadLetters({ queue: 'test.transient' })).toHaveLength(1), { timeout: 10_000 });
    expect(attempts).toEqual([1, 2, 3]);
    const [dead] = await queue.deadLetters({ queue: 'test.transient' });
    expect(dead).toMatchObject({ data: { messageId: 11 }, reason: 'provider timed out', permanent: false, attempts: 3 });

    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('queue_jobs_total{queue="test.transient",outcome="retried"} 2');
    expect(metrics).toContain('queue_jobs_total{queue="test.transient",outcome="dead_lettered"} 1');
  });

  it('gives every job of a failing burst all its attempts and dead-letters each once (no retry closed early)', async () => {
    const attempts = new Map<number, number[]>();
    await queue.define('test.retried-burst', { retryLimit: 2, retryDelay: 0, retryBackoff: false });
    await queue.work(
      'test.retried-burst',
      async ({ messageId }, job) => {
        attempts.set(messageId, [...(attempts.get(messageId) ?? []), job.attempt]);
        throw new Error('provider unavailable');
      },
      { ...FAST, concurrency: 4 },
    );
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    await transaction(t.database.db, async (unit) => {
      for (const messageId of ids) await queue.enqueue(unit, 'test.retried-burst', { messageId });
    });

    await vi.waitFor(async () => expect(await queue.deadLetters({ queue: 'test.retried-burst' })).toHaveLength(ids.length), { timeout: 30_000, interval: 200 });
    expect(await jobRows('test.retried-burst')).toEqual(ids.map(() => expect.objectContaining({ state: 'failed' })));
    expect(new Map([...attempts].sort(([a], [b]) => a - b))).toEqual(new Map(ids.map((id) => [id, [1, 2, 3]])));
  }, 40_000);

  it('completes a job whose retry succeeds, leaving nothing dead-lettered', async () => {
    const attempts: number[] = [];
    await queue.define('test.flaky', { retryLimit: 2, retryDelay: 0, retryBackoff: false });
    await queue.work(
      'test.flaky',
      async (_data, job) => {
        attempts.push(job.attempt);
        if (job.attempt === 1) throw new Error('connection reset');
      },
      FAST,
    );
    await transaction(t.database.db, async (unit) => void (await queue.enqueue(unit, 'test.flaky', { messageId: 12 })));

    await vi.waitFor(async () => expect(await jobRows('test.flaky')).toEqual([{ state: 'completed', data: { messageId: 12 } }]), { timeout: 10_000 });
    expect(attempts).toEqual([1, 2]);
    expect(await queue.deadLetters({ queue: 'test.flaky' })).toEqual([]);
  });
});

describe('batched workers (batchSize > 1)', () => {
  it('runs a burst in parallel up to its concurrency and settles each job on its own outcome', async () => {
    const attempts = new Map<number, number[]>();
    let running = 0;
    let most = 0;
    await queue.define('test.batched', { retryLimit: 2, retryDelay: 0, retryBackoff: false });
    await queue.work(
      'test.batched',
      async ({ n }, job) => {
        attempts.set(n, [...(attempts.get(n) ?? []), job.attempt]);
        running++;
        most = Math.max(most, running);
        await sleep(20);
        running--;
        if (n % 10 === 0) throw new PermanentJobError(`job ${n} is invalid`);
        if (n % 2 === 0 && job.attempt === 1) throw new Error('provider busy');
      },
      { ...FAST, concurrency: 6, batchSize: 4, batchWindowMs: 5 },
    );
    const ns = Array.from({ length: 30 }, (_, i) => i + 1);
    await transaction(t.database.db, async (unit) => {
      for (const n of ns) await queue.enqueue(unit, 'test.batched', { n });
    });

    const settled = async () => {
      const { rows } = await t.database.executeSql(`select data->>'n' as n, state from pgboss.job where name = 'test.batched' order by (data->>'n')::int`);
      return rows.map((r) => [Number(r.n), r.state]);
    };
    const expected = ns.map((n) => [n, n % 10 === 0 ? 'failed' : 'completed']);
    await vi.waitFor(async () => expect(await settled()).toEqual(expected), { timeout: 20_000, interval: 200 });
    // Odd jobs ran once, even ones twice (a busy provider, then success), permanent failures once.
    expect(new Map([...attempts].sort(([a], [b]) => a - b))).toEqual(new Map(ns.map((n) => [n, n % 10 === 0 || n % 2 === 1 ? [1] : [1, 2]])));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(6);
    expect((await queue.deadLetters({ queue: 'test.batched' })).map((d) => (d.data as { n: number }).n).sort((a, b) => a - b)).toEqual([10, 20, 30]);
  }, 30_000);

  it('wakes an idle batched worker after the commit instead of waiting for its next poll', async () => {
    const latencies: number[] = [];
    await queue.define('test.batched-woken');
    await queue.work('test.batched-woken', async ({ sentAt }) => void latencies.push(Date.now() - sentAt), {
      pollingIntervalSeconds: 30,
      concurrency: 4,
      batchSize: 4,
    });
    await sleep(300); // the worker's first poll found nothing: it now waits 30 s unless woken
    await transaction(t.database.db, async (unit) => {
      await queue.enqueue(unit, 'test.batched-woken', { sentAt: Date.now() });
    });
    await vi.waitFor(() => expect(latencies).toHaveLength(1), { timeout: 5000 });
    expect(latencies[0]).toBeLessThan(5000);
  });
});

describe('backlog metrics', () => {
  it('reports the jobs waiting in a queue nobody works, and how long the oldest has waited', async () => {
    await queue.define('test.backlog');
    await transaction(t.database.db, async (unit) => {
      await queue.enqueue(unit, 'test.backlog', { n: 1 });
      await queue.enqueue(unit, 'test.backlog', { n: 2 });
      // Delayed to later: not yet due, so not in the backlog.
      await queue.enqueue(unit, 'test.backlog', { n: 3 }, { startAfter: 3600 });
    });
    await sleep(1100);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('queue_jobs_waiting{queue="test.backlog"} 2');
    const age = Number(/^queue_oldest_job_age_seconds\{queue="test.backlog"\} ([\d.e+-]+)$/m.exec(metrics)?.[1]);
    expect(age).toBeGreaterThanOrEqual(1);
    expect(age).toBeLessThan(60);
    expect(metrics).toContain('queue_jobs_waiting{queue="test.note"} 0');
  });
});

describe('schedules', () => {
  it('registers a cron schedule in its time zone and replaces it on a second registration', async () => {
    await queue.define('test.report');
    await queue.schedule('test.report', '0 8 * * 1', { entityId: 1 }, { tz: 'America/Bogota' });
    await queue.schedule('test.report', '30 7 * * 1-5', { entityId: 1 }, { tz: 'America/Bogota' });
    const mine = (await queue.schedules()).filter((s) => s.name === 'test.report');
    expect(mine).toEqual([{ name: 'test.report', cron: '30 7 * * 1-5', timezone: 'America/Bogota', data: { entityId: 1 } }]);

    await queue.unschedule('test.report');
    expect((await queue.schedules()).filter((s) => s.name === 'test.report')).toEqual([]);
  });

  it('refuses an unknown time zone, a bad cron expression and an undefined queue', async () => {
    await queue.define('test.report');
    await expect(queue.schedule('test.report', '0 8 * * 1', { entityId: 1 }, { tz: 'Mars/Olympus_Mons' })).rejects.toThrow();
    await expect(queue.schedule('test.report', 'every monday', { entityId: 1 }, { tz: 'UTC' })).rejects.toThrow();
    const untyped = queue as unknown as Queue<{ 'test.nowhere': object }>;
    await expect(untyped.schedule('test.nowhere', '0 8 * * 1', {}, { tz: 'UTC' })).rejects.toThrow(/not defined/);
    expect((await queue.schedules()).filter((s) => s.name === 'test.report')).toEqual([]);
  });
});
