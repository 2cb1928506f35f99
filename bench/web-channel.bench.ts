/**
 * The website chat on one instance (issue 32): BENCH_WEB_VISITORS (default 2,000) visitor sessions with their
 * `/widget` sockets connected, and one agent socket of the entity. Then, interleaved, a visitor's message
 * (`POST /api/widget/:token/messages`) and a WhatsApp webhook (`POST /api/interactions/webhooks/communications`),
 * one after the other, 50 ms apart, and the time until the agent's socket hears each one (`interaction.message.created`).
 * Target: the visitor message's p99 within 1.5× the webhook's, measured in the same run.
 */
import { io, type Socket } from 'socket.io-client';
import { percentile as pct, rssOfProcess, startServiceProcess, type BenchSection } from './lib.js';
import { whatsAppMessage } from '../sim/communications/payloads.js';

const WEBSITE = 'wt_bench';

/** Runs each of `steps` 50 ms after the previous one started (or ended, when it took longer); their results in order. */
async function sequence<T>(steps: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (const step of steps) {
    const t0 = performance.now();
    results.push(await step());
    await new Promise((r) => setTimeout(r, Math.max(0, 50 - (performance.now() - t0))));
  }
  return results;
}

export async function run(): Promise<BenchSection> {
  const count = Number(process.env.BENCH_WEB_VISITORS ?? 2000);
  const rounds = Number(process.env.BENCH_WEB_ROUNDS ?? 200);
  const service = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(new URL('./web-server.child.ts', import.meta.url));
  const { baseUrl, token, kind } = service.ready;
  const headers = { 'content-type': 'application/json', origin: baseUrl };
  const sockets: Socket[] = [];
  try {
    const agent = io(`${baseUrl}/interactions`, { transports: ['websocket'], auth: { token }, forceNew: true, reconnection: false });
    sockets.push(agent);
    await new Promise<void>((resolve, reject) => (agent.once('interaction.ready', () => resolve()), agent.once('connect_error', reject)));
    const rssBefore = rssOfProcess(service.pid) / 2 ** 20;
    const started = performance.now();
    const visitors: string[] = [];
    // In waves of 100, as browsers arrive: a session, then its socket.
    for (let i = 0; i < count; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, async (_, j) => {
          const res = await fetch(`${baseUrl}/api/widget/${WEBSITE}/session`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ prechat: { name: `Visitor ${i + j}` } }),
          });
          if (!res.ok) throw new Error(`session: ${res.status} ${await res.text()}`);
          const { visitor_token: visitorToken } = (await res.json()) as { visitor_token: string };
          const socket = io(`${baseUrl}/widget`, {
            transports: ['websocket'],
            auth: { website_token: WEBSITE, token: visitorToken },
            extraHeaders: { origin: baseUrl },
            forceNew: true,
            reconnection: false,
          });
          sockets.push(socket);
          await new Promise<void>((resolve, reject) => (socket.once('widget.ready', () => resolve()), socket.once('connect_error', reject)));
          visitors.push(visitorToken);
        }),
      );
    }
    const connectSeconds = (performance.now() - started) / 1000;
    const rssAfter = rssOfProcess(service.pid) / 2 ** 20;

    const heard = new Map<string, (at: number) => void>();
    agent.on('interaction.message.created', (p: { message: { external_message_id: string } }) => heard.get(p.message.external_message_id)?.(performance.now()));
    const timed = async (id: string, send: () => Promise<Response>): Promise<number | undefined> => {
      const t0 = performance.now();
      const arrived = new Promise<number>((resolve) => heard.set(id, resolve));
      const res = await send();
      if (!res.ok) throw new Error(`${id}: ${res.status} ${await res.text()}`);
      const at = await Promise.race([arrived, new Promise<undefined>((r) => setTimeout(() => r(undefined), 10_000))]);
      heard.delete(id);
      return at === undefined ? undefined : at - t0;
    };
    const web: number[] = [];
    const whatsapp: number[] = [];
    let missing = 0;
    for (let i = 0; i < rounds; i++) {
      const visitor = visitors[(i * 7919) % visitors.length]!;
      const clientId = `bench-${i}`;
      // One after the other, 50 ms apart: sent together, one would wait for the other's batch (PGlite has one connection).
      const round = performance.now();
      const [w, a] = await sequence([
        () =>
          timed(`web:${JSON.parse(Buffer.from(visitor.split('.')[1]!, 'base64url').toString()).vid as number}:${clientId}`, () =>
            fetch(`${baseUrl}/api/widget/${WEBSITE}/messages`, {
              method: 'POST',
              headers: { ...headers, authorization: `Bearer ${visitor}` },
              body: JSON.stringify({ text: `web ${i}`, client_message_id: clientId }),
            }),
          ),
        () =>
          timed(`wamid.WEB.BENCH.${i}`, () =>
            fetch(`${baseUrl}/api/interactions/webhooks/communications`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(
                whatsAppMessage(
                  { phoneNumberId: 'BENCH-PNID' },
                  { from: `5025550${String(i % 1000).padStart(4, '0')}`, id: `wamid.WEB.BENCH.${i}`, text: `wa ${i}` },
                ),
              ),
            }),
          ),
      ]);
      if (w === undefined) missing++;
      else web.push(w);
      if (a === undefined) missing++;
      else whatsapp.push(a);
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - round))));
    }
    const ratio = pct(web, 99) / pct(whatsapp, 99);
    const markdown = [
      `Database: ${kind}. ${count} website visitors (a session and a \`/widget\` socket each, connected in waves of 100) and one agent socket on one instance; then ${rounds} rounds of one visitor message and one WhatsApp webhook, 50 ms apart, each timed until the agent's socket hears \`interaction.message.created\`.`,
      '',
      '| visitors | connect s | RSS before MB | RSS after MB | visitor → agent p50 ms | p99 ms | WhatsApp webhook → agent p50 ms | p99 ms | p99 ratio | missing |',
      '|---|---|---|---|---|---|---|---|---|---|',
      `| ${count} | ${connectSeconds.toFixed(1)} | ${rssBefore.toFixed(0)} | ${rssAfter.toFixed(0)} | ${pct(web, 50).toFixed(1)} | ${pct(web, 99).toFixed(1)} | ${pct(whatsapp, 50).toFixed(1)} | ${pct(whatsapp, 99).toFixed(1)} | ${ratio.toFixed(2)} | ${missing} |`,
    ].join('\n');
    return {
      title: 'Website chat on one instance',
      markdown,
      checks: [
        { name: 'every message reaches the agent', integrity: true, ok: missing === 0, detail: `${missing} missing` },
        { name: 'visitor message → agent p99 within 1.5× the WhatsApp webhook → agent p99', ok: ratio <= 1.5, detail: `${ratio.toFixed(2)}×` },
      ],
    };
  } finally {
    for (const s of sockets) s.disconnect();
    await service.stop();
  }
}
