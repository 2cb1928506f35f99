/**
 * Child process of records.bench.ts: starts a fresh server on the benchmark's PostgreSQL database,
 * downloads the cartera export (discarding the body) and prints its own RSS before and at peak as JSON,
 * so the figure is not polluted by the load generator of the parent.
 */
import { startServer } from './lib.js';

const url = process.env.DATABASE_URL;
const token = process.env.BENCH_TOKEN;
if (!url || !token) throw new Error('DATABASE_URL and BENCH_TOKEN are required');

const server = await startServer({ DATABASE_URL: url });
try {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  let bytes = 0;
  try {
    const res = await fetch(`${server.baseUrl}/cartera/export.xlsx?kind=lead`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  process.stdout.write(JSON.stringify({ bytes, seconds: (performance.now() - started) / 1000, baselineMb: baseline / 2 ** 20, peakMb: peak / 2 ** 20 }) + '\n');
} finally {
  await server.close();
}
