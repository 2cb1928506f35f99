/**
 * ERP catalogs benchmark: with the ERP simulator and the service running, warm the catalog cache, then
 * measure the authenticated `GET /api/permissions/me` and `GET /catalogs/currencies` side by side in the
 * same run (ABBA order against drift). Target: memory-level catalog reads >= 90% of /permissions/me
 * req/s, i.e. the cache adds nothing measurable over authentication.
 */
import { measure, startServer, table, type BenchSection, type Measurement } from './lib.js';
import { erpEnvFor, startErpSimulator } from '../sim/erp/server.js';
import { seedDemo } from '../src/db/demo-seed.js';

const ME = 'GET /api/permissions/me';
const CURRENCIES = 'GET /catalogs/currencies (memory hit)';

function average(title: string, runs: Measurement[]): Measurement {
  const n = runs.length;
  const sum = (f: (m: Measurement) => number) => runs.reduce((s, m) => s + f(m), 0);
  return {
    title,
    requestsPerSecond: sum((m) => m.requestsPerSecond) / n,
    p50Ms: sum((m) => m.p50Ms) / n,
    p99Ms: Math.max(...runs.map((m) => m.p99Ms)),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
  };
}

export async function run(): Promise<BenchSection> {
  const sim = await startErpSimulator();
  const server = await startServer(erpEnvFor(sim.url));
  try {
    await seedDemo(server.database.db);
    const login = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'admin123', entity_id: 1 }),
    });
    const body = (await login.json()) as { access_token: string; erp_session: { status: string } };
    if (body.erp_session.status !== 'ready') throw new Error(`ERP session not ready: ${body.erp_session.status}`);
    const headers = { authorization: `Bearer ${body.access_token}` };
    for (let i = 0; i < 3; i++) {
      const warm = await fetch(`${server.baseUrl}/catalogs/currencies`, { headers });
      if (warm.status !== 200) throw new Error(`catalog warm-up failed: ${warm.status}`);
    }
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const me = () => measure({ title: ME, url: `${server.baseUrl}/api/permissions/me`, headers, durationSeconds: seconds, connections: 20 });
    const cur = () => measure({ title: CURRENCIES, url: `${server.baseUrl}/catalogs/currencies`, headers, durationSeconds: seconds, connections: 20 });
    const meRuns = [await me()];
    const curRuns = [await cur(), await cur()];
    meRuns.push(await me());
    const results = [average(ME, meRuns), average(CURRENCIES, curRuns)];
    const ratio = results[1]!.requestsPerSecond / results[0]!.requestsPerSecond;
    const ok = ratio >= 0.9 && results.every((m) => m.non2xx + m.errors === 0);
    return {
      title: `ERP catalogs (${server.kind})`,
      markdown: [
        `Catalog reads from the memory level next to the authenticated permissions route (20 connections, ${seconds} s per run, ABBA order, averaged).`,
        '',
        table(results, ME),
      ].join('\n'),
      checks: [{ name: 'catalog memory hits >= 90% of GET /api/permissions/me req/s', ok, detail: `${(ratio * 100).toFixed(0)}%` }],
    };
  } finally {
    await server.close();
    await sim.close();
  }
}
