/**
 * Inbound webhook benchmark: the communications simulator posts WhatsApp messages at a fixed rate
 * (500 events/s for 20 s by default, after an unreported 4 s warm-up at 250 events/s from other senders)
 * while a real Socket.IO client of the entity listens. Reports webhook acceptance latency (HTTP answer)
 * and webhook-to-socket latency (POST sent until `interaction.message.created` for that message arrives),
 * then probes higher rates for 5 s each to find the sustainable maximum (the highest rate whose achieved
 * rate stays within 95% of the target with socket p99 under 1 s; BENCH_NO_PROBES skips them). Honours
 * DATABASE_URL (PostgreSQL); 127.0.0.1 only. The service runs in its own process, as in production, so the
 * load generator and the measuring client do not share its event loop.
 */
import { Agent, request } from 'node:http';
import { io } from 'socket.io-client';
import { measure, openLoad, percentile as pct, SMOKE, startServiceProcess, type BenchSection } from './lib.js';
import { whatsAppMessage } from '../sim/communications/payloads.js';

const PNID = 'BENCH-PNID';

export interface RunStats {
  targetRate: number;
  achievedRate: number;
  acceptP50: number;
  acceptP99: number;
  socketP50: number;
  socketP99: number;
  lost: number;
  non200: number;
}

// Bounded keep-alive connections, as the communications service would hold them.
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * Posts `rate` events/s for `seconds` from 2,000 senders (`senderPrefix` + 6 digits) to `server` and measures
 * them on a socket connected to `socketServer` (default the same instance).
 */
export async function runAtRate(
  server: { baseUrl: string },
  token: string,
  rate: number,
  seconds: number,
  tag: string,
  senderPrefix = '50255',
  socketServer: { baseUrl: string } = server,
): Promise<RunStats> {
  const socket = io(`${socketServer.baseUrl}/interactions`, { transports: ['websocket'], auth: { token }, forceNew: true });
  await new Promise((resolve, reject) => {
    socket.once('interaction.ready', resolve);
    socket.once('connect_error', reject);
  });
  const sentAt = new Map<string, number>();
  const socketLatency: number[] = [];
  socket.on('interaction.message.created', (p: { message: { external_message_id: string } }) => {
    const t0 = sentAt.get(p.message.external_message_id);
    if (t0 !== undefined) socketLatency.push(performance.now() - t0);
  });
  const accept: number[] = [];
  let non200 = 0;
  const url = `${server.baseUrl}/api/interactions/webhooks/communications`;
  const total = rate * seconds;
  const { achievedRate } = await openLoad(rate, total, async (i) => {
    const id = `wamid.${tag}.${i}`;
    const body = JSON.stringify(whatsAppMessage({ phoneNumberId: PNID }, { from: `${senderPrefix}${String(100_000 + (i % 2000))}`, id, text: `bench ${i}` }));
    const t0 = performance.now();
    sentAt.set(id, t0);
    const status = await post(url, body);
    accept.push(performance.now() - t0);
    if (status !== 200) non200++;
  });
  const deadline = performance.now() + 15_000;
  while (socketLatency.length < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  socket.disconnect();
  return {
    targetRate: rate,
    achievedRate,
    acceptP50: pct(accept, 50),
    acceptP99: pct(accept, 99),
    socketP50: pct(socketLatency, 50),
    socketP99: pct(socketLatency, 99),
    lost: total - socketLatency.length,
    non200,
  };
}

export async function run(): Promise<BenchSection> {
  const service = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(new URL('./interactions-server.child.ts', import.meta.url));
  const server = service.ready;
  const token = server.token;
  try {
    const seconds = Number(process.env.BENCH_INTERACTIONS_SECONDS ?? 20);
    // Warm-up, not reported: a fresh process compiles its hot code and opens its database connections in
    // its first seconds. Other senders, so the measured run still starts with 2,000 new ones.
    await runAtRate(server, token, 250, SMOKE ? 1 : 4, 'warmup', '50256');
    const main = await runAtRate(server, token, 500, seconds, 'main');
    const probes: RunStats[] = [];
    for (const rate of process.env.BENCH_NO_PROBES ? [] : [750, 1000, 1500, 2000, 2500, 3000]) {
      const r = await runAtRate(server, token, rate, 5, `probe${rate}`);
      probes.push(r);
      if (r.achievedRate < rate * 0.95 || !(r.socketP99 < 1000) || r.lost > 0) break;
    }
    const sustainable = [main, ...probes].filter((r) => r.achievedRate >= r.targetRate * 0.95 && r.socketP99 < 1000 && r.lost === 0).map((r) => r.targetRate);
    const max = sustainable.length > 0 ? Math.max(...sustainable) : 0;
    // The floor, in the same run (issue 55): the raw primary-key route's throughput and p99 on this instance.
    const raw = await measure({ title: 'raw primary-key SELECT', url: `${server.baseUrl}/bench/select`, connections: 50, warmupSeconds: 2 });
    const half = max > 0 && !process.env.BENCH_NO_PROBES ? await runAtRate(server, token, Math.round(max / 2), 5, 'half') : undefined;
    const row = (r: RunStats) =>
      `| ${r.targetRate} | ${r.achievedRate.toFixed(0)} | ${r.acceptP50.toFixed(1)} | ${r.acceptP99.toFixed(1)} | ${r.socketP50.toFixed(1)} | ${r.socketP99.toFixed(1)} | ${r.lost} | ${r.non200} |`;
    const markdown = [
      `Database: ${server.kind}. After a 4 s warm-up at 250 events/s (not reported), ${seconds} s at 500 events/s from 2,000 senders new to the service, then 5 s probes at higher rates. Latencies in ms.`,
      '',
      '| target ev/s | achieved ev/s | accept p50 | accept p99 | webhook→socket p50 | webhook→socket p99 | lost | non-200 |',
      '|---|---|---|---|---|---|---|---|',
      row(main),
      ...probes.map(row),
      '',
      `Sustainable maximum measured: ${max} events/s (achieved ≥ 95% of target, every event reached the socket, socket p99 < 1 s).`,
      '',
      `Raw primary-key SELECT route on the same instance (50 connections): ${raw.requestsPerSecond.toFixed(0)} req/s, p99 ${raw.p99Ms.toFixed(1)} ms.` +
        ` Sustainable webhook rate ${((max / raw.requestsPerSecond) * 100).toFixed(0)}% of its req/s` +
        (half
          ? `; at half that rate (${half.targetRate} ev/s) webhook→socket p99 ${half.socketP99.toFixed(1)} ms, ${(half.socketP99 / raw.p99Ms).toFixed(1)}× its p99.`
          : '.'),
    ].join('\n');
    return {
      title: 'Inbound webhook (interactions)',
      markdown,
      checks: [
        { name: 'webhook acceptance p99 < 25 ms at 500 ev/s', ok: main.acceptP99 < 25, detail: `${main.acceptP99.toFixed(1)} ms` },
        { name: 'webhook-to-socket p99 < 200 ms at 500 ev/s', ok: main.socketP99 < 200, detail: `${main.socketP99.toFixed(1)} ms` },
        {
          name: 'sustainable webhook rate ≥ 40% of the raw primary-key route req/s',
          ok: max >= 0.4 * raw.requestsPerSecond,
          detail: `${max} ev/s, ${((max / raw.requestsPerSecond) * 100).toFixed(0)}% of ${raw.requestsPerSecond.toFixed(0)}`,
        },
        ...(half
          ? [
              {
                name: 'webhook-to-socket p99 at half the sustainable rate ≤ 4× the raw route p99',
                ok: half.socketP99 <= 4 * raw.p99Ms && half.lost === 0,
                detail: `${half.socketP99.toFixed(1)} ms at ${half.targetRate} ev/s, ${(half.socketP99 / raw.p99Ms).toFixed(1)}× ${raw.p99Ms.toFixed(1)} ms`,
              },
            ]
          : []),
        {
          name: 'every accepted event reached the socket',
          integrity: true,
          ok: main.lost === 0 && main.non200 === 0,
          detail: `lost ${main.lost}, non-200 ${main.non200}`,
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
