/**
 * Outbound sending benchmark (issue "Conversations out"): agents send text messages through the API at
 * 400 sends/s (BENCH_OUTBOUND_RATE; issue 55's rate per instance) for 20 s (BENCH_OUTBOUND_SECONDS) into 100 conversations, against the
 * communications simulator in this process, after 3 s (BENCH_OUTBOUND_WARMUP_SECONDS) of the same load that
 * is not counted. Reports the API's answer latency (202, message stored and queued), send-to-provider latency (API request sent until the simulator received the message) and duplicates at
 * the simulator (messages delivered more than once), next to the auth-only baseline measured in the same
 * run. The service runs in its own process. On PostgreSQL a crash run follows (`crashRun`): two instances, the
 * sending one killed with SIGKILL halfway through BENCH_OUTBOUND_CRASH_SECONDS (default 10) of the same rate.
 *
 * A send answered other than 202 fails the section (issue 55: a benchmark agent without the right to answer
 * had every send refused with 404 and timed the refusals): the answers are listed by status and code, and
 * the latency targets are not met when what they timed were not sends. So is a setup whose agent does not
 * see its 100 conversations, which then sends nothing.
 */
import { Agent, request } from 'node:http';
import { measure, openLoad, percentile as pct, SMOKE, startServiceProcess, table, throwawayDatabase, type BenchSection } from './lib.js';
import { startProviderSimulator } from '../sim/communications/provider.js';
import { whatsAppMessage } from '../sim/communications/payloads.js';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const API_KEY = 'bench-communications-key';

function send(url: string, token: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(body), ...headers },
      },
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

/**
 * 100 customers write first (the service window is open), then the agent lists its inbox (docs/api/interactions.md,
 * "Visibility"): the ids of the 100 conversations it answers, or why the benchmark cannot measure sends.
 */
async function openConversations(baseUrl: string, token: string): Promise<number[] | string> {
  const chats = Array.from({ length: 100 }, (_, i) => `5025577${String(i).padStart(4, '0')}`);
  for (const from of chats) {
    const res = await fetch(`${baseUrl}/api/interactions/webhooks/communications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'BENCH-OUT' }, { from, text: 'hola' })),
    });
    if (!res.ok) return `the webhook answered ${res.status} to the customer ${from}: ${await res.text()}`;
  }
  let conversations: number[] = [];
  for (let i = 0; i < 100 && conversations.length < chats.length; i++) {
    const listed = await fetch(`${baseUrl}/api/interactions/conversations?limit=100`, { headers: { authorization: `Bearer ${token}` } });
    if (!listed.ok) return `the agent's GET /api/interactions/conversations answered ${listed.status}: ${await listed.text()}`;
    conversations = ((await listed.json()) as { data: { id: number }[] }).data.map((c) => c.id);
    if (conversations.length < chats.length) await new Promise((r) => setTimeout(r, 100));
  }
  if (conversations.length < chats.length)
    return `the agent sees ${conversations.length} of the ${chats.length} conversations its customers opened (after 10 s); a send to one it does not see answers 404`;
  return conversations;
}

type Ready = { baseUrl: string; token: string; kind: string };
type Simulator = Awaited<ReturnType<typeof startProviderSimulator>>;

/**
 * The crash run (issue 55): two instances on one PostgreSQL database, sends posted to A at `rate`/s for
 * `seconds`, each with its own `Idempotency-Key`, and A killed with SIGKILL halfway. A send A did not answer
 * is posted again to B with the same key, as a client does after a lost connection. A's claimed attempts are
 * retaken by B once they expire (COMMUNICATIONS_TIMEOUT_MS 2 s gives a 10 s expiry; the queue's maintenance
 * every 2 s). Every send must be delivered exactly once: counted by text at the simulator, whose own
 * idempotency answers a repeated key with `replay` (a send A made but had not recorded).
 */
async function crashRun(sim: Simulator, rate: number, seconds: number): Promise<Pick<BenchSection, 'markdown' | 'checks'>> {
  const db = await throwawayDatabase('bench_out_crash');
  const child = new URL('./outbound-server.child.ts', import.meta.url);
  const env = {
    COMMUNICATIONS_BASE_URL: sim.url,
    COMMUNICATIONS_API_KEY: API_KEY,
    BENCH_SHARED_DATABASE_URL: db.url,
    QUEUE_MAINTENANCE_INTERVAL_SECONDS: '2',
    COMMUNICATIONS_TIMEOUT_MS: '2000',
  };
  // One after the other: the first migrates the shared database.
  const a = await startServiceProcess<Ready>(child, env);
  const b = await startServiceProcess<Ready>(child, env);
  const name = 'SIGKILL of the sending instance: every send delivered exactly once';
  try {
    const { token } = a.ready;
    const opened = await openConversations(a.ready.baseUrl, token);
    if (typeof opened === 'string') return { markdown: `Crash run not measured: ${opened}.`, checks: [{ name, integrity: true, ok: false, detail: opened }] };
    sim.reset();
    const total = rate * seconds;
    const urlOf = (baseUrl: string, i: number) => `${baseUrl}/api/interactions/conversations/${opened[i % opened.length]}/messages/text`;
    let target = a.ready.baseUrl;
    const started = performance.now();
    let killedAfterMs = 0;
    const kill = setTimeout(
      () => {
        process.kill(a.pid, 'SIGKILL');
        killedAfterMs = performance.now() - started;
        target = b.ready.baseUrl;
      },
      (seconds * 1000) / 2,
    );
    const refused = new Map<string, number>();
    const api: number[] = [];
    let resent = 0;
    let non202 = 0;
    await openLoad(rate, total, async (i) => {
      const body = JSON.stringify({ body: `crash run ${i}` });
      const headers = { 'idempotency-key': `bench-crash-${i}` };
      const t0 = performance.now();
      let r = await send(urlOf(target, i), token, body, headers);
      for (let again = 0; r.status === 0 && again < 3; again++) {
        resent++;
        r = await send(urlOf(b.ready.baseUrl, i), token, body, headers);
      }
      api.push(performance.now() - t0);
      if (r.status !== 202) {
        non202++;
        refused.set(refusal(r), (refused.get(refusal(r)) ?? 0) + 1);
      }
    });
    clearTimeout(kill);
    const loadEnded = performance.now();
    await sim.waitForDeliveries(total, 90_000).catch(() => undefined);
    const allDeliveredAfterMs = performance.now() - loadEnded;
    const seen = new Map<string, number>();
    for (const d of sim.deliveries) {
      const text = (d.body.text as { body: string }).body;
      seen.set(text, (seen.get(text) ?? 0) + 1);
    }
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    const lost = total - seen.size;
    const replays = sim.calls.filter((c) => c.outcome === 'replay').length;
    const markdown = [
      `Crash run: two instances on one database; ${seconds} s at ${rate} sends/s posted to A, A killed with SIGKILL after ${(killedAfterMs / 1000).toFixed(1)} s, the rest posted to B; a send A left unanswered posted again to B with its Idempotency-Key.`,
      '',
      '| sends | resent after the kill | non-202 | API p99 ms | delivered | lost | duplicated | provider replays | last delivery after the load, s |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${total} | ${resent} | ${non202} | ${pct(api, 99).toFixed(1)} | ${seen.size} | ${lost} | ${duplicates} | ${replays} | ${(allDeliveredAfterMs / 1000).toFixed(1)} |`,
    ].join('\n');
    const ok = lost === 0 && duplicates === 0 && non202 === 0 && killedAfterMs > 0;
    const detail = `delivered ${seen.size}/${total}, duplicated ${duplicates}, non-202 ${non202}${non202 > 0 ? ` (${refusals(refused)})` : ''}, ${resent} resent to B`;
    return { markdown, checks: [{ name, integrity: true, ok, detail }] };
  } finally {
    await a.stop();
    await b.stop();
    await db.drop();
  }
}

const TITLE = 'Outbound sending (conversations out)';

export async function run(): Promise<BenchSection> {
  const sim = await startProviderSimulator({ apiKey: API_KEY });
  try {
    const single = await oneInstance(sim);
    if (!process.env.DATABASE_URL)
      return { ...single, markdown: `${single.markdown}\n\nCrash run: not run (two instances need one PostgreSQL database: set DATABASE_URL).` };
    const rate = Number(process.env.BENCH_OUTBOUND_RATE ?? 400);
    const crash = await crashRun(sim, rate, Number(process.env.BENCH_OUTBOUND_CRASH_SECONDS ?? (SMOKE ? 2 : 10)));
    return { title: TITLE, markdown: `${single.markdown}\n\n${crash.markdown}`, checks: [...single.checks, ...crash.checks] };
  } finally {
    await sim.close();
  }
}

/** Sends at the target rate through one instance, beside its auth-only baseline. */
async function oneInstance(sim: Simulator): Promise<BenchSection> {
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
    const opened = await openConversations(baseUrl, token);
    if (typeof opened === 'string') return notMeasured(opened);
    const conversations = opened;

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
  }
}
