/**
 * Search at scale (issue 51): one entity with BENCH_SEARCH_MESSAGES messages (default 1,000,000) in a tenth as
 * many conversations, as many contacts and leads as conversations (each lead with a phone), seeded with SQL
 * `generate_series` through the migrated schema (so the generated search columns and their GIN indexes are
 * written as any insert writes them). Texts draw words from a 1,000-word vocabulary, so one word is in about
 * 0.9% of messages.
 * Measures `GET /api/search` p50/p95/p99 (4 concurrent clients, each request timed) for a word, a phrase, a
 * prefix and a phone, as an admin (`conversations.view_all`) and as a restricted agent (a 1/150 share of the
 * conversations assigned), and writes the EXPLAIN (ANALYZE, BUFFERS) of each message and lead query to
 * bench/plans/search-*.postgres.<messages>.txt. Targets (issue 51): p95 ≤ 100 ms, p99 ≤ 250 ms, restricted
 * p99 ≤ 1.5× the admin's.
 */
import { writeFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Db } from '../src/db/client.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { searchMessages } from '../src/modules/interactions/message-search/message-search.repository.js';
import { searchLeads } from '../src/modules/records/record-search.repository.js';
import { percentile, SMOKE, startServer, type BenchSection } from './lib.js';

const MESSAGES = Number(process.env.BENCH_SEARCH_MESSAGES ?? (SMOKE ? 3000 : 1_000_000));
const CONVERSATIONS = Math.max(10, Math.floor(MESSAGES / 10));
const AGENTS = 50;
const REQUESTS = SMOKE ? 20 : 400;
const CONCURRENCY = 4;

interface Timing {
  title: string;
  p50: number;
  p95: number;
  p99: number;
  hits: number;
  failures: number;
}

async function timeRequests(title: string, url: string, token: string): Promise<Timing> {
  const times: number[] = [];
  let failures = 0;
  let hits = 0;
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      next++;
      const t0 = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { data?: unknown[] };
      times.push(performance.now() - t0);
      if (res.status !== 200) failures++;
      else hits = body.data?.length ?? 0;
    }
  };
  // Warm-up: plans and pooled connections, as a running service has them.
  for (let i = 0; i < Math.min(10, REQUESTS); i++) await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { title, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), hits, failures };
}

export async function run(): Promise<BenchSection> {
  const server = await startServer();
  const { app } = server;
  const db = server.database.db;
  try {
    const started = performance.now();
    const dir = createDirectoryService(db);
    const e = (await dir.ensureEntity({ name: 'Bench Search' })).id;
    const adminRole = await dir.ensureRole({
      entityId: e,
      name: 'admin',
      permissions: ['conversations.view_all', 'conversations.reply_any', 'contacts.view', 'leads.view', 'groups.view'],
    });
    const agentRole = await dir.ensureRole({ entityId: e, name: 'agent', permissions: ['contacts.view', 'leads.view', 'groups.view'] });
    const member = async (name: string, roleId: number) => {
      const user = await dir.upsertUser({ email: `${name}-${Date.now()}@bench.example.com`, name, password: 'bench-password' });
      const employee = await dir.ensureEmployee({ userId: user.id, entityId: e, name });
      await dir.subscribe({ employeeId: employee.id, entityId: e, roleId });
      const principal = await app.ctx.authenticator.principalFor(user.id, e, 'web');
      return { employeeId: employee.id, token: (await app.ctx.tokens.sign(claimsFor(principal!))).token };
    };
    const admin = await member('admin', adminRole.id);
    const agents: { employeeId: number; token: string }[] = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await member(`agent${i}`, agentRole.id));
    const agentIds = `{${agents.map((a) => a.employeeId).join(',')}}`;

    await db.execute(sql`insert into entity_channel_account (entity_id, channel_type_code, external_account_id, display_name)
      values (${e}, 'chatapp_api', 'BENCH-SEARCH', 'Bench')`);
    await db.execute(sql`insert into crm_group (entity_id, name) select ${e}, 'Grupo ' || g from generate_series(1, ${CONVERSATIONS}) g`);
    await db.execute(sql`insert into lead (entity_id, group_id, name, phone, email, tax_id)
      select entity_id, id, 'Cliente ' || id, '+5025' || lpad(id::text, 7, '0'), 'cliente' || id || '@correo.example', id || '-K'
      from crm_group where entity_id = ${e}`);
    await db.execute(
      sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contacto ' || id from lead where entity_id = ${e}`,
    );
    const seededRecords = performance.now();
    // A third assigned round robin to the agents: each agent sees 1/150 of the conversations.
    await db.execute(sql`insert into conversation (entity_id, entity_channel_account_id, channel_type_code, external_chat_id, contact_id, lead_id, group_id,
        assignment_status, assigned_employee_id, last_message_at, sender_name)
      select ${e}, (select id from entity_channel_account where entity_id = ${e}), 'chatapp_api', '5025' || lpad(c.id::text, 7, '0'), c.id, c.lead_id, c.group_id,
        case when c.id % 3 = 0 then 'assigned' else 'unassigned' end,
        case when c.id % 3 = 0 then (${agentIds}::int[])[1 + ((c.id / 3) % ${AGENTS})] end,
        now(), c.name
      from contact c where c.entity_id = ${e}`);
    // Messages in batches (a statement per 200,000 rows keeps one transaction's WAL and GIN pending list bounded).
    const vocabulary = `array(select 'palabra' || w from generate_series(0, 999) w)`;
    const batch = 200_000;
    for (let from = 0; from < MESSAGES; from += batch) {
      const to = Math.min(MESSAGES, from + batch) - 1;
      await db.execute(
        sql.raw(`insert into message (entity_id, conversation_id, direction, type, text, content, external_message_id, occurred_at, occurred_at_ms)
        select ${e}, cv.first + (i % ${CONVERSATIONS}), case when i % 2 = 0 then 'inbound' else 'outbound' end, 'text',
          'Hola ' || v[1 + (i * 7) % 1000] || ' ' || v[1 + (i * 13) % 1000] || ' sobre la factura ' || v[1 + (i * 31) % 1000] || ' gracias',
          '{}', 'bench.' || i, now() - (i || ' seconds')::interval, (extract(epoch from now()) * 1000)::bigint - i * 1000
        from generate_series(${from}, ${to}) i, (select ${vocabulary} as v) words,
          (select min(id) as first from conversation where entity_id = ${e}) cv`),
      );
      console.log(`search: ${to + 1} messages`);
    }
    await db.execute(sql`vacuum analyze`);
    const seedSeconds = (performance.now() - started) / 1000;
    console.log(`search: seeded in ${seedSeconds.toFixed(1)} s (records ${((seededRecords - started) / 1000).toFixed(1)} s)`);

    // The queries: a word in ~0.9% of messages (with "factura", in every one: ranking cost), a phrase, a prefix, a phone.
    const queries = [
      { name: 'word', q: 'palabra861 palabra599 ', types: 'message' },
      { name: 'phrase', q: '"hola palabra861"', types: 'message' },
      { name: 'prefix', q: 'factura palabra12', types: 'message' },
      {
        name: 'phone',
        q: `5025 ${String(Math.floor(CONVERSATIONS / 2))
          .padStart(7, '0')
          .slice(0, 3)}-${String(Math.floor(CONVERSATIONS / 2))
          .padStart(7, '0')
          .slice(3)}`,
        types: 'lead,contact',
      },
    ];
    const agent = agents[7]!;
    const timings: Timing[] = [];
    const ratios: Record<string, number> = {};
    for (const q of queries) {
      const url = `${server.baseUrl}/api/search?q=${encodeURIComponent(q.q)}&types=${q.types}&limit=20`;
      const a = await timeRequests(`${q.name} (admin)`, url, admin.token);
      const r = await timeRequests(`${q.name} (restricted agent)`, url, agent.token);
      timings.push(a, r);
      ratios[q.name] = r.p99 / a.p99;
      console.log(`search: ${q.name} admin p95 ${a.p95.toFixed(1)} p99 ${a.p99.toFixed(1)}, agent p95 ${r.p95.toFixed(1)} p99 ${r.p99.toFixed(1)} ms`);
    }

    // EXPLAIN of the statements the service ran, captured from the repositories themselves.
    if (server.kind === 'postgres' && !SMOKE) {
      const pool = new pg.Pool({ connectionString: server.database.url });
      const captured: { text: string; params: unknown[] }[] = [];
      const capturing = drizzle(pool, { casing: 'snake_case', logger: { logQuery: (text, params) => captured.push({ text, params }) } }) as unknown as Db;
      const base = { entityId: e, excluded: [], filters: {}, limit: 21 };
      const plans: { name: string; run: () => Promise<unknown> }[] = [
        {
          name: 'word',
          run: () =>
            searchMessages(
              capturing,
              { entityId: e, employeeId: null, userId: null, viewAll: true, replyAny: true },
              { ...base, tsquery: "'palabra861' & 'palabra599'", full: '' },
            ),
        },
        {
          name: 'word-restricted',
          run: () =>
            searchMessages(
              capturing,
              { entityId: e, employeeId: agent.employeeId, userId: null, viewAll: false, replyAny: false },
              { ...base, tsquery: "'palabra861' & 'palabra599'", full: '' },
            ),
        },
        {
          name: 'phrase',
          run: () =>
            searchMessages(
              capturing,
              { entityId: e, employeeId: null, userId: null, viewAll: true, replyAny: true },
              { ...base, tsquery: "('hola' <-> 'palabra861')", full: '' },
            ),
        },
        {
          name: 'prefix',
          run: () =>
            searchMessages(
              capturing,
              { entityId: e, employeeId: null, userId: null, viewAll: true, replyAny: true },
              { ...base, tsquery: "'factura' & 'palabra12':*", full: '' },
            ),
        },
        { name: 'phone', run: () => searchLeads(capturing, { ...base, terms: [queries[3]!.q], full: queries[3]!.q }) },
      ];
      for (const p of plans) {
        captured.length = 0;
        await p.run();
        const first = captured[0]!;
        const explained = await pool.query(`explain (analyze, buffers) ${first.text}`, first.params);
        const text = explained.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
        writeFileSync(new URL(`plans/search-${p.name}.postgres.${MESSAGES}.txt`, import.meta.url), `${first.text}\n\n${text}\n`);
      }
      await pool.end();
    }

    const worst = (k: 'p95' | 'p99') => Math.max(...timings.map((t) => t[k]));
    const worstRatio = Math.max(...Object.values(ratios));
    const failures = timings.reduce((n, t) => n + t.failures, 0);
    return {
      title: `Search (${MESSAGES.toLocaleString('en')} messages, ${CONVERSATIONS.toLocaleString('en')} conversations, contacts and leads, ${server.kind})`,
      markdown: [
        `Seeded in ${seedSeconds.toFixed(1)} s. ${REQUESTS} requests per row, ${CONCURRENCY} concurrent clients, \`limit=20\`.`,
        '',
        '| query | p50 ms | p95 ms | p99 ms | hits on the page |',
        '|---|---|---|---|---|',
        ...timings.map((t) => `| ${t.title} | ${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.hits} |`),
        '',
        `Restricted p99 / admin p99: ${Object.entries(ratios)
          .map(([k, v]) => `${k} **${v.toFixed(2)}**`)
          .join(', ')} (target ≤ 1.5).`,
      ].join('\n'),
      checks: [
        { name: 'search p95 ≤ 100 ms', ok: worst('p95') <= 100, detail: `${worst('p95').toFixed(1)} ms` },
        { name: 'search p99 ≤ 250 ms', ok: worst('p99') <= 250, detail: `${worst('p99').toFixed(1)} ms` },
        { name: 'restricted p99 ≤ 1.5× admin', ok: worstRatio <= 1.5, detail: worstRatio.toFixed(2) },
        { name: 'every search answered 200', integrity: true, ok: failures === 0, detail: `${failures} failures` },
      ],
    };
  } finally {
    await server.close();
  }
}
