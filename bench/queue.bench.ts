/**
 * Job queue benchmark (pg-boss on the service's database): how many trivial jobs per second go through
 * "enqueue in a transaction, fetch, run, complete", and the enqueue-to-handler latency at a steady rate
 * with the after-commit wake (target for outbound sends: p99 < 250 ms). Honours DATABASE_URL
 * (PostgreSQL); compare with the inbound webhook section of the same run to decide where the inbox
 * worker runs (docs/decisions.md).
 */
import pino from 'pino';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { createQueue, type Queue } from '../src/platform/queue/queue.js';
import { transaction } from '../src/platform/transactions/transaction.js';
import { openLoad, percentile, throwawayDatabase, type BenchSection } from './lib.js';

interface BenchJobs {
  'bench.throughput': { n: number };
  'bench.latency': { sentAt: number };
}

const now = () => performance.timeOrigin + performance.now();
const PRODUCERS = 16;
const WORKERS = 8;

export async function run(): Promise<BenchSection> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const own = await throwawayDatabase('bench_queue');
  const database = await openPreparedDatabase({ databaseUrl: own.url, dataDir: ':memory:', databasePoolSize: 20 });
  const queue = createQueue(database, pino({ level: 'warn' })) as unknown as Queue<BenchJobs>;
  try {
    await queue.define('bench.throughput', { retryLimit: 0 });
    await queue.define('bench.latency', { retryLimit: 0 });
    let handled = 0;
    const latencies: number[] = [];
    await queue.work('bench.throughput', async () => void handled++, { concurrency: WORKERS });
    await queue.work('bench.latency', async ({ sentAt }) => void latencies.push(now() - sentAt), { concurrency: 2 });
    await queue.start();

    // Throughput: PRODUCERS loops each committing one job per transaction for `seconds`; then drain.
    let enqueued = 0;
    const started = now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: PRODUCERS }, async () => {
        while (now() < until) {
          await transaction(database.db, async (unit) => void (await queue.enqueue(unit, 'bench.throughput', { n: enqueued++ })));
        }
      }),
    );
    const enqueueSeconds = (now() - started) / 1000;
    while (handled < enqueued && now() < until + 60_000) await new Promise((r) => setTimeout(r, 20));
    const totalSeconds = (now() - started) / 1000;
    const enqueueRate = enqueued / enqueueSeconds;
    const jobRate = handled / totalSeconds;

    // Latency: a steady 50 jobs/s, each in its own transaction, woken after commit.
    const rate = 50;
    const latencyStart = now();
    const expected = rate * Math.min(seconds, 10);
    await openLoad(rate, expected, () => transaction(database.db, async (unit) => void (await queue.enqueue(unit, 'bench.latency', { sentAt: now() }))));
    while (latencies.length < expected && now() < latencyStart + 120_000) await new Promise((r) => setTimeout(r, 20));
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);

    const markdown = [
      `Database: ${database.kind}. ${PRODUCERS} producers, each committing one job per transaction for ${seconds} s; ${WORKERS} workers (pg-boss fetch of 1, trivial handler). Then ${expected} jobs at ${rate}/s, each in its own transaction, for the enqueue-to-handler latency (polling interval 2 s; the commit wakes the local worker).`,
      '',
      '| enqueued jobs/s (commit) | handled jobs/s (enqueue→complete, drained) | latency p50 ms | latency p99 ms | handled |',
      '|---|---|---|---|---|',
      `| ${enqueueRate.toFixed(0)} | ${jobRate.toFixed(0)} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${handled + latencies.length}/${enqueued + expected} |`,
    ].join('\n');
    return {
      title: `Job queue: pg-boss throughput and wake latency (${database.kind})`,
      markdown,
      checks: [
        { name: `enqueue-to-handler p99 < 250 ms at ${rate} jobs/s`, ok: p99 < 250, detail: `${p99.toFixed(1)} ms` },
        {
          name: 'every enqueued job was handled',
          integrity: true,
          ok: handled === enqueued && latencies.length === expected,
          detail: `${handled + latencies.length}/${enqueued + expected}`,
        },
      ],
    };
  } finally {
    await queue.stop();
    await database.close();
    await own.drop();
  }
}
