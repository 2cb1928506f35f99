/**
 * ERP catalogs benchmark: with the ERP simulator and the service running, warm the catalog cache, then
 * measure the authenticated `GET /api/permissions/me`, `GET /catalogs/currencies` and a conversation's
 * `GET .../catalog/products?q=` side by side in the same run (alternating rounds, medians, against the
 * shared machine's bursts of load). Targets: memory-level catalog reads, and the product search inside a
 * conversation, >= 90% of /permissions/me req/s, i.e. the cache adds nothing measurable over authentication.
 */
import { alternatingRounds, measure, startServer, table, type BenchSection } from './lib.js';
import { erpEnvFor, startErpSimulator } from '../sim/erp/server.js';
import { seedDemo } from '../src/bootstrap/demo-seed.js';
import { whatsAppMessage } from '../sim/communications/payloads.js';

const ME = 'GET /api/permissions/me';
const CURRENCIES = 'GET /catalogs/currencies (memory hit)';
const PRODUCTS = 'GET /interactions/conversations/:id/catalog/products?q=cafe (memory hit)';

export async function run(): Promise<BenchSection> {
  const sim = await startErpSimulator();
  const server = await startServer(erpEnvFor(sim.url));
  try {
    const demo = await seedDemo(server.database.db);
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
    // A customer writes in, so that there is a conversation to open the catalog in.
    const inbound = whatsAppMessage({ phoneNumberId: demo.interactions.phoneNumberId }, { from: '50255500001', text: '¿Tienen café?' });
    await fetch(`${server.baseUrl}/api/interactions/webhooks/communications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(inbound),
    });
    let conversationId: number | undefined;
    for (let i = 0; i < 100 && conversationId === undefined; i++) {
      const conversations = (await (await fetch(`${server.baseUrl}/interactions/conversations`, { headers })).json()) as { data: { id: number }[] };
      conversationId = conversations.data[0]?.id;
      if (conversationId === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    if (conversationId === undefined) throw new Error('the inbound message opened no conversation');
    const productsUrl = `${server.baseUrl}/interactions/conversations/${conversationId}/catalog/products?q=cafe`;
    const warmProducts = await fetch(productsUrl, { headers });
    if (warmProducts.status !== 200) throw new Error(`products warm-up failed: ${warmProducts.status} ${await warmProducts.text()}`);
    const seconds = Math.min(Number(process.env.BENCH_SECONDS ?? 4), 8);
    const me = () => measure({ title: ME, url: `${server.baseUrl}/api/permissions/me`, headers, durationSeconds: seconds, connections: 20 });
    const cur = () => measure({ title: CURRENCIES, url: `${server.baseUrl}/catalogs/currencies`, headers, durationSeconds: seconds, connections: 20 });
    const prod = () => measure({ title: PRODUCTS, url: productsUrl, headers, durationSeconds: seconds, connections: 20 });
    const results = await alternatingRounds(Number(process.env.BENCH_ROUNDS ?? 4), [me, cur, prod]);
    const ratio = results[1]!.requestsPerSecond / results[0]!.requestsPerSecond;
    const productRatio = results[2]!.requestsPerSecond / results[0]!.requestsPerSecond;
    const clean = results.every((m) => m.non2xx + m.errors === 0);
    return {
      title: `ERP catalogs (${server.kind})`,
      markdown: [
        `Catalog reads from the memory level next to the authenticated permissions route (20 connections, 4 alternating rounds of ${seconds} s per route, medians).`,
        '',
        table(results, ME),
      ].join('\n'),
      checks: [
        { name: 'catalog memory hits >= 90% of GET /api/permissions/me req/s', ok: ratio >= 0.9 && clean, detail: `${(ratio * 100).toFixed(0)}%` },
        {
          name: 'conversation catalog/products?q= from memory >= 90% of GET /api/permissions/me req/s',
          ok: productRatio >= 0.9 && clean,
          detail: `${(productRatio * 100).toFixed(0)}%`,
        },
      ],
    };
  } finally {
    await server.close();
    await sim.close();
  }
}
