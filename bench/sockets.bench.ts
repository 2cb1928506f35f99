/**
 * Socket capacity of one instance (issue "Scale-out", capacity): connects BENCH_SOCKETS (default 2,000)
 * authenticated Socket.IO clients of one entity to the service in its own process, then posts one inbound
 * message a second for 10 s and measures how long the last of the clients takes to receive each one
 * (fan-out latency), with the service's RSS before and after connecting. The clients share this process.
 */
import { io, type Socket } from 'socket.io-client';
import { percentile as pct, rssOfProcess, SMOKE, startServiceProcess, type BenchSection } from './lib.js';
import { whatsAppMessage } from '../sim/communications/payloads.js';

const PNID = 'BENCH-PNID';

/** Inbound messages fanned out, one every `INTERVAL_MS`. */
const MESSAGES = SMOKE ? 3 : 10;
const INTERVAL_MS = SMOKE ? 200 : 1000;
export async function run(): Promise<BenchSection> {
  const count = Number(process.env.BENCH_SOCKETS ?? 2000);
  const service = await startServiceProcess<{ baseUrl: string; token: string; kind: string }>(new URL('./interactions-server.child.ts', import.meta.url));
  const { baseUrl, token, kind } = service.ready;
  const sockets: Socket[] = [];
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const rssBefore = rssOfProcess(service.pid) / 2 ** 20;
    const connectStarted = performance.now();
    // Connected in waves of 100: a real fleet of browsers does not open all at once either.
    for (let i = 0; i < count; i += 100) {
      const wave = Array.from({ length: Math.min(100, count - i) }, () => {
        const socket = io(`${baseUrl}/interactions`, { transports: ['websocket'], auth: { token }, forceNew: true, reconnection: false });
        sockets.push(socket);
        return new Promise<void>((resolve, reject) => {
          socket.once('interaction.ready', () => resolve());
          socket.once('connect_error', reject);
        });
      });
      await Promise.all(wave);
    }
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const rssAfter = rssOfProcess(service.pid) / 2 ** 20;

    const fanOut: number[] = [];
    let missing = 0;
    for (let i = 0; i < MESSAGES; i++) {
      const id = `wamid.SOCKETS.${Date.now()}.${i}`;
      let received = 0;
      const t0 = performance.now();
      const allReceived = new Promise<void>((resolve) => {
        const onCreated = (p: { message: { external_message_id: string } }) => {
          if (p.message.external_message_id !== id) return;
          if (++received === sockets.length) resolve();
        };
        for (const s of sockets) s.on('interaction.message.created', onCreated);
      });
      await fetch(`${baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsAppMessage({ phoneNumberId: PNID }, { from: '50255577777', id, text: `fan-out ${i}` })),
      });
      const timedOut = await Promise.race([allReceived.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 10_000))]);
      if (timedOut) missing += sockets.length - received;
      else fanOut.push(performance.now() - t0);
      for (const s of sockets) s.removeAllListeners('interaction.message.created');
      await new Promise((r) => setTimeout(r, Math.max(0, INTERVAL_MS - (performance.now() - t0))));
    }
    const perSocketKb = ((rssAfter - rssBefore) * 1024) / count;
    const markdown = [
      `Database: ${kind}. ${count} clients of one entity on one instance (websocket transport), connected in waves of 100; then ${MESSAGES} inbound messages ${INTERVAL_MS} ms apart, each delivered to every client (the entity's room).`,
      '',
      '| sockets | connect time s | RSS before MB | RSS after MB | per socket KB | webhook→last client p50 ms | p99 ms | deliveries missing |',
      '|---|---|---|---|---|---|---|---|',
      `| ${count} | ${connectSeconds.toFixed(1)} | ${rssBefore.toFixed(0)} | ${rssAfter.toFixed(0)} | ${perSocketKb.toFixed(0)} | ${pct(fanOut, 50).toFixed(1)} | ${pct(fanOut, 99).toFixed(1)} | ${missing} |`,
    ].join('\n');
    return {
      title: 'Sockets on one instance',
      markdown,
      checks: [
        {
          name: 'every client receives every message',
          integrity: true,
          ok: missing === 0 && fanOut.length === MESSAGES,
          detail: `${missing} deliveries missing`,
        },
      ],
    };
  } finally {
    for (const s of sockets) s.disconnect();
    await service.stop();
  }
}
