/**
 * SLA timers and the webhook path (issue 31): the inbound webhook benchmark's load (interactions.bench.ts,
 * `runAtRate`: 500 events/s from 2,000 new senders) against one service (sla-server.child.ts) holding business
 * hours, a default SLA policy and 100,000 open conversations whose 200,000 timers wait in the job queue, in
 * alternating rounds: with the timers and the policy, and without them (timers parked outside the job queue,
 * the policy inactive), BENCH_SLA_ROUNDS (3) of BENCH_SLA_SECONDS (8) each, on the same warmed process and
 * database so that the machine's drift falls on both. Target: the median acceptance p99 with SLA within 1.1×
 * of the median without. Only the acceptance (the HTTP answer) is reported: the webhook-to-socket path is
 * interactions.bench.ts's.
 */
import { percentile, SMOKE, startServiceProcess, type BenchSection } from './lib.js';
import { runAtRate, type RunStats } from './interactions.bench.js';

const TARGET_RATIO = 1.1;
const median = (xs: number[]) => percentile(xs, 50);

export async function run(): Promise<BenchSection> {
  const service = await startServiceProcess<{ baseUrl: string; token: string; kind: string; seedSeconds: number; controlUrl: string }>(
    new URL('./sla-server.child.ts', import.meta.url),
    { BENCH_SLA: '1' },
  );
  const server = service.ready;
  const toggle = async (on: boolean) => {
    const res = await fetch(`${server.controlUrl}/${on ? 'on' : 'off'}`, { method: 'POST' });
    await res.text();
  };
  try {
    const rounds = Number(process.env.BENCH_SLA_ROUNDS ?? 3);
    const seconds = Number(process.env.BENCH_SLA_SECONDS ?? 8);
    await runAtRate(server, server.token, 250, SMOKE ? 1 : 4, 'warm', '50256');
    const withSla: RunStats[] = [];
    const without: RunStats[] = [];
    for (let r = 0; r < rounds; r++) {
      // Distinct senders per round: every round opens new conversations (each gets its policy and timers when on).
      await toggle(true);
      withSla.push(await runAtRate(server, server.token, 500, seconds, `sla${r}`, `5${1 + 2 * r}7`));
      await toggle(false);
      without.push(await runAtRate(server, server.token, 500, seconds, `plain${r}`, `5${2 + 2 * r}7`));
    }
    const p99With = median(withSla.map((s) => s.acceptP99));
    const p99Without = median(without.map((s) => s.acceptP99));
    const ratio = p99With / p99Without;
    const row = (name: string, r: RunStats) =>
      `| ${name} | ${r.achievedRate.toFixed(0)} | ${r.acceptP50.toFixed(1)} | ${r.acceptP99.toFixed(1)} | ${r.non200} |`;
    const markdown = [
      `Database: ${server.kind}. Seeded in ${server.seedSeconds.toFixed(0)} s: 100,000 open conversations under a business-hours policy and their 200,000 pending timers. ${rounds} alternating rounds of ${seconds} s at 500 events/s after a 4 s warm-up. Latencies in ms.`,
      '',
      '| round | achieved ev/s | accept p50 | accept p99 | non-200 |',
      '|---|---|---|---|---|',
      ...withSla.flatMap((s, i) => [row(`${i + 1}: with SLA timers`, s), row(`${i + 1}: without`, without[i]!)]),
      '',
      `Median acceptance p99: ${p99With.toFixed(1)} ms with, ${p99Without.toFixed(1)} ms without (ratio ${ratio.toFixed(2)}).`,
    ].join('\n');
    return {
      title: 'SLA timers and the webhook path',
      markdown,
      checks: [
        {
          name: `webhook acceptance p99 with 100,000 timed conversations within ${TARGET_RATIO}× of the same run without`,
          ok: ratio <= TARGET_RATIO,
          detail: `${ratio.toFixed(2)}×`,
        },
      ],
    };
  } finally {
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then(
    (section) => {
      console.log(`## ${section.title}\n\n${section.markdown}\n`);
      for (const c of section.checks) console.log(`${c.ok ? 'ok' : 'FAILED'}: ${c.name} (${c.detail})`);
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
