/**
 * Scale-out benchmark (issue "Scale-out", acceptance): first one instance alone (no Redis), then two service
 * processes on one PostgreSQL database and one Redis. Webhooks are posted at 500 events/s
 * (BENCH_SCALE_OUT_SECONDS per configuration, default 10); with two instances they go to A while the
 * measuring socket sits on A and then on B (through the Redis Streams adapter). Reports webhook-to-socket
 * latency of the three and the ratios of the other instance's p99 to the two others. Needs DATABASE_URL and
 * REDIS_URL; without them it reports that it did not run.
 */
import { SMOKE, startServiceProcess, throwawayDatabase, type BenchSection } from './lib.js';
import { runAtRate, type RunStats } from './interactions.bench.js';

/** Seconds of 250 events/s run first on each instance and not reported (compiled code, open connections). */
const WARMUP_SECONDS = SMOKE ? 1 : 4;
export async function run(): Promise<BenchSection> {
  const redisUrl = process.env.REDIS_URL;
  if (!process.env.DATABASE_URL || !redisUrl) {
    return { title: 'Scale-out: webhook to a socket on the other instance', markdown: 'Not run: needs DATABASE_URL and REDIS_URL.', checks: [] };
  }
  const seconds = Number(process.env.BENCH_SCALE_OUT_SECONDS ?? 10);
  const child = new URL('./interactions-server.child.ts', import.meta.url);
  const single = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(child);
  let alone: RunStats[];
  try {
    await runAtRate(single.ready, single.ready.token, 250, WARMUP_SECONDS, 'warmup-single', '50256');
    alone = [
      await runAtRate(single.ready, single.ready.token, 500, seconds / 2, 'single0', '50255'),
      await runAtRate(single.ready, single.ready.token, 500, seconds / 2, 'single1', '50254'),
    ];
  } finally {
    await single.stop();
  }
  const db = await throwawayDatabase('bench_scale');
  const env = { BENCH_SHARED_DATABASE_URL: db.url, BENCH_REDIS_URL: redisUrl };
  // One after the other: the first migrates the shared database.
  const a = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(child, env);
  const b = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(child, env);
  try {
    const { token } = a.ready;
    await runAtRate(a.ready, token, 250, WARMUP_SECONDS, 'warmup-a', '50256');
    await runAtRate(a.ready, token, 250, WARMUP_SECONDS, 'warmup-b', '50257', b.ready);
    // In the order same, other, other, same: neither side always runs first, or always right after the other.
    const same: RunStats[] = [];
    const other: RunStats[] = [];
    for (let round = 0; round < 2; round++) {
      const runSame = async () => same.push(await runAtRate(a.ready, token, 500, seconds / 2, `same${round}`, `5025${8 + round}`));
      const runOther = async () => other.push(await runAtRate(a.ready, token, 500, seconds / 2, `other${round}`, `5026${round}`, b.ready));
      if (round === 0) {
        await runSame();
        await runOther();
      } else {
        await runOther();
        await runSame();
      }
    }
    const worst = (runs: RunStats[], key: 'socketP50' | 'socketP99' | 'acceptP99') => Math.max(...runs.map((r) => r[key]));
    const lost = [...alone, ...same, ...other].reduce((n, r) => n + r.lost + r.non200, 0);
    const ratio = worst(other, 'socketP99') / worst(alone, 'socketP99');
    const ratioSame = worst(other, 'socketP99') / worst(same, 'socketP99');
    const row = (label: string, runs: RunStats[]) =>
      `| ${label} | ${Math.min(...runs.map((r) => r.achievedRate)).toFixed(0)} | ${worst(runs, 'acceptP99').toFixed(1)} | ${worst(runs, 'socketP50').toFixed(1)} | ${worst(runs, 'socketP99').toFixed(1)} | ${runs.reduce((n, r) => n + r.lost, 0)} |`;
    const markdown = [
      `Database: ${a.ready.kind}. One instance alone (no Redis), then two instances on one database and the Redis Streams adapter with webhooks posted to A; 500 events/s, ${seconds} s per configuration in two halves (the worse half is shown; the two-instance halves alternated), after warm-ups. Latencies in ms.`,
      '',
      '| deployment, socket on | achieved ev/s | accept p99 | webhook→socket p50 | webhook→socket p99 | lost |',
      '|---|---|---|---|---|---|',
      row('one instance', alone),
      row('two instances, A (same instance)', same),
      row('two instances, B (other instance)', other),
      '',
      `Other instance's p99 over one instance alone: ${ratio.toFixed(2)}×; over the same instance of the pair: ${ratioSame.toFixed(2)}×.`,
    ].join('\n');
    return {
      title: 'Scale-out: webhook to a socket on the other instance',
      markdown,
      checks: [
        { name: 'webhook-to-socket p99 on the other instance within 1.5× of one instance alone', ok: ratio <= 1.5, detail: `${ratio.toFixed(2)}×` },
        { name: 'every accepted event reached the socket', integrity: true, ok: lost === 0, detail: `${lost} lost or refused` },
      ],
    };
  } finally {
    await a.stop();
    await b.stop();
    await db.drop();
  }
}
