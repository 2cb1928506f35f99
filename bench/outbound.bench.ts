/**
 * Outbound sending benchmark (issue "Conversations out"): agents send text messages through the API at
 * 400 sends/s (BENCH_OUTBOUND_RATE; issue 55's rate per instance) for 20 s (BENCH_OUTBOUND_SECONDS) into 100 conversations, against the
 * communications simulator in this process, after 3 s (BENCH_OUTBOUND_WARMUP_SECONDS) of the same load that
 * is not counted. Reports the API's answer latency (202, message stored and queued), send-to-provider latency (API request sent until the simulator received the message) and duplicates at
 * the simulator (messages delivered more than once), next to the auth-only baseline measured in the same
 * run. The service runs in its own process.
 *
 * A send answered other than 202 fails the section (issue 55: a benchmark agent without the right to answer
 * had every send refused with 404 and timed the refusals): the answers are listed by status and code, and
 * the latency targets are not met when what they timed were not sends. So is a setup whose agent does not
 * see its 100 conversations, which then sends nothing.
 */
import { Agent, request } from 'node:http';
import { measure, openLoad, percentile as pct, startServiceProcess, table, type BenchSection } from './lib.js';
import { startProviderSimulator } from '../sim/communications/provider.js';
import { whatsAppMessage } from '../sim/communications/payloads.js';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const API_KEY = 'bench-communications-key';

function send(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(body);
  });
}

const now = () => performance.timeOrigin + performance.now();

/** An answer other than 202 as `<status> <problem code>` (`no answer` when the request failed). */
function refusal(r: { status: number; text: string }): string {
  if (r.status === 0) return 'no answer';
  try {
    const code = (JSON.parse(r.text) as { code?: unknown }).code;
    return typeof code === 'string' ? `${r.status} ${code}` : String(r.status);
  } catch {
    return String(r.status);
  }
}

/** The refusals counted by kind, e.g. `404 not_found ×4000`. */
const refusals = (counts: Map<string, number>) => [...counts].map(([kind, n]) => `${kind} ×${n}`).join(', ');

/**
 * Sends `count` text messages at `rate` per second (`openLoad`) and resolves once every answer came: API
 * latencies in ms, when each message was requested (epoch ms, by its text), the answers other than 202
 * (their number, and counted by status and code), the achieved rate.
 */
async function paced(rate: number, count: number, nth: (i: number) => { url: string; text: string }, token: string) {
  const requestedAt = new Map<string, number>();
  const api: number[] = [];
  const refused = new Map<string, number>();
  let non202 = 0;
  const { achievedRate } = await openLoad(rate, count, async (i) => {
    const { url, text } = nth(i);
    const t0 = performance.now();
    requestedAt.set(text, now());
    const r = await send(url, token, JSON.stringify({ body: text }));
    api.push(performance.now() - t0);
    if (r.status !== 202) {
      non202++;
      const kind = refusal(r);
      refused.set(kind, (refused.get(kind) ?? 0) + 1);
    }
  });
  return { api, requestedAt, non202, refused, accepted: count - non202, achieved: achievedRate };
}

const TITLE = 'Outbound sending (conversations out)';

export async function run(): Promise<BenchSection> {
  const sim = await startProviderSimulator({ apiKey: API_KEY });
  const service = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(new URL('./outbound-server.child.ts', import.meta.url), {
    COMMUNICATIONS_BASE_URL: sim.url,
    COMMUNICATIONS_API_KEY: API_KEY,
  });
  const { baseUrl, token, kind } = service.ready;
  try {
    // A setup that leaves the agent nothing to answer is a failed section, not a measurement of refusals.
    const notMeasured = (detail: string): BenchSection => ({
      title: TITLE,
      markdown: `Database: ${kind}. **Not measured**: ${detail}.`,
      checks: [{ name: 'the benchmark agent answers its 100 conversations', integrity: true, ok: false, detail }],
    });
    // 100 customers write first (the service window is open), then agents answer them.
    const chats = Array.from({ length: 100 }, (_, i) => `5025577${String(i).padStart(4, '0')}`);
    for (const from of chats) {
      const res = await fetch(`${baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'BENCH-OUT' }, { from, text: 'hola' })),
      });
      if (!res.ok) return notMeasured(`the webhook answered ${res.status} to the customer ${from}: ${await res.text()}`);
    }
    // The agent's inbox: the conversations it sees (docs/api/interactions.md, "Visibility").
    let conversations: number[] = [];
    for (let i = 0; i < 100 && conversations.length < chats.length; i++) {
      const listed = await fetch(`${baseUrl}/api/interactions/conversations?limit=100`, { headers: { authorization: `Bearer ${token}` } });
      if (!listed.ok) return notMeasured(`the agent's GET /api/interactions/conversations answered ${listed.status}: ${await listed.text()}`);
      conversations = ((await listed.json()) as { data: { id: number }[] }).data.map((c) => c.id);
      if (conversations.length < chats.length) await new Promise((r) => setTimeout(r, 100));
    }
    if (conversations.length < chats.length) {
      return notMeasured(
        `the agent sees ${conversations.length} of the ${chats.length} conversations its customers opened (after 10 s); a send to one it does not see answers 404`,
      );
    }

    const baseline = await measure({
      title: 'GET /api/permissions/me (auth-only baseline)',
      url: `${baseUrl}/api/permissions/me`,
      headers: { authorization: `Bearer ${token}` },
      connections: 50,
      warmupSeconds: 2,
    });

    const rate = Number(process.env.BENCH_OUTBOUND_RATE ?? 400);
    const seconds = Number(process.env.BENCH_OUTBOUND_SECONDS ?? 20);
    const warmupSeconds = Number(process.env.BENCH_OUTBOUND_WARMUP_SECONDS ?? 3);
    const sendAt = (label: string, count: number) =>
      paced(
        rate,
        count,
        (i) => ({ url: `${baseUrl}/api/interactions/conversations/${conversations[i % conversations.length]}/messages/text`, text: `${label} ${i}` }),
        token,
      );
    // The same load first, discarded: a long-running service has long compiled its send path, prepared its
    // statements on every pooled connection and started its send worker, which the first sends would pay.
    let warmup = '';
    let warmRefused = '';
    if (warmupSeconds > 0) {
      const warm = await sendAt('bench warm-up', rate * warmupSeconds);
      await sim.waitForDeliveries(warm.accepted, 30_000).catch(() => undefined);
      if (warm.non202 > 0) warmRefused = `${warm.non202} of ${rate * warmupSeconds} warm-up sends answered ${refusals(warm.refused)}`;
      warmup = `Warm-up (not counted): API p50 ${pct(warm.api, 50).toFixed(1)} ms, p99 ${pct(warm.api, 99).toFixed(1)} ms, max ${pct(warm.api, 100).toFixed(1)} ms; ${warm.non202} non-202${warm.non202 > 0 ? ` (${refusals(warm.refused)})` : ''}.`;
    }
    sim.reset();
    const total = rate * seconds;
    const { api, requestedAt, non202, refused, achieved } = await sendAt('bench reply', total);
    await sim.waitForDeliveries(total - non202, 30_000).catch(() => undefined);
    const seen = new Map<string, number>();
    const toProvider: number[] = [];
    for (const d of sim.deliveries) {
      const text = (d.body.text as { body: string }).body;
      seen.set(text, (seen.get(text) ?? 0) + 1);
      const t0 = requestedAt.get(text);
      if (t0 !== undefined && seen.get(text) === 1) toProvider.push(d.receivedAt - t0);
    }
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    const delivered = seen.size;
    // Latencies of refused sends time the refusal, not a send: the latency targets need every send accepted.
    const all202 = non202 === 0 && warmRefused === '';
    const measuredRefused = non202 > 0 ? `${non202} of ${total} sends answered ${refusals(refused)}` : '';
    const whyNot = [measuredRefused, warmRefused].filter(Boolean).join('; ');
    const markdown = [
      `Database: ${kind}. ${seconds} s at ${rate} sends/s into 100 conversations, after ${warmupSeconds} s of the same load (not counted); the communications simulator answers at once. Latencies in ms.`,
      '',
      table([baseline], baseline.title),
      '',
      '| target sends/s | achieved | API p50 | API p99 | send→provider p50 | send→provider p99 | delivered | duplicates | non-202 |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${rate} | ${achieved.toFixed(0)} | ${pct(api, 50).toFixed(1)} | ${pct(api, 99).toFixed(1)} | ${pct(toProvider, 50).toFixed(1)} | ${pct(toProvider, 99).toFixed(1)} | ${delivered}/${total} | ${duplicates} | ${non202} |`,
      '',
      `Baseline req/s over the send rate: ${(baseline.requestsPerSecond / rate).toFixed(1)}×.`,
      ...(all202 ? [] : ['', `**Sends refused**: ${whyNot}. The latencies above time those answers, not sends.`]),
      ...(warmup ? ['', warmup] : []),
    ].join('\n');
    return {
      title: TITLE,
      markdown,
      checks: [
        {
          name: 'every send answered 202',
          integrity: true,
          ok: all202,
          detail: all202 ? `${total} of ${total}${warmupSeconds > 0 ? `, and the warm-up's ${rate * warmupSeconds}` : ''}` : whyNot,
        },
        {
          name: `API p99 ≤ 3× the auth-only baseline p99 at ${rate} sends/s`,
          ok: all202 && pct(api, 99) <= 3 * baseline.p99Ms,
          detail: `${pct(api, 99).toFixed(1)} ms, ${(pct(api, 99) / baseline.p99Ms).toFixed(1)}× ${baseline.p99Ms.toFixed(1)} ms${all202 ? '' : ', timing refused sends'}`,
        },
        {
          name: 'send-to-provider p99 < 250 ms',
          ok: toProvider.length === total && pct(toProvider, 99) < 250,
          detail: `${pct(toProvider, 99).toFixed(1)} ms over ${toProvider.length} of ${total} messages delivered`,
        },
        {
          name: 'every message delivered once, no duplicates',
          integrity: true,
          ok: duplicates === 0 && delivered === total && non202 === 0,
          detail: `delivered ${delivered}/${total}, duplicates ${duplicates}, non-202 ${non202}`,
        },
      ],
    };
  } finally {
    await service.stop();
    await sim.close();
  }
}
