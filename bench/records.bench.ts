/**
 * Records and cartera under load: 100k leads (10k groups, 100k contacts, seller assignments on groups
 * and leads), then `GET /leads?limit=50` and `GET /cartera/leads?limit=50` at 50 connections, and the
 * streamed xlsx export of all 100k rows with the server's RSS sampled every 20 ms while the body is
 * read and discarded. On PostgreSQL (DATABASE_URL) it works in its own throw-away database.
 * Targets (issue 3): p99 < 50 ms for both lists; export peak RSS < 300 MB.
 */
import { availableParallelism, loadavg } from 'node:os';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { measure, measureExport, startServer, table, type BenchSection, type BenchServer, throwawayDatabase } from './lib.js';
import { createDirectoryService } from '../src/modules/admin/directory.service.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';

const LEADS = Number(process.env.BENCH_RECORDS_LEADS ?? 100_000);
const P99_TARGET_MS = 50;
const RSS_TARGET_MB = 300;

/** Bulk seed with set-based SQL: groups, leads, clients, one contact per record, assignments on half the groups and a tenth of the leads. */
async function seed(server: BenchServer): Promise<{ entityId: number; token: string; sellerId: number }> {
  const db = server.database.db;
  const dir = createDirectoryService(db);
  const entity = await dir.ensureEntity({ name: 'Bench Records' });
  const user = await dir.upsertUser({ email: `bench-records-${Date.now()}@example.com`, name: 'Bench', password: 'bench-password' });
  const employee = await dir.ensureEmployee({ userId: user.id, entityId: entity.id, name: 'Bench Seller' });
  const role = await dir.ensureRole({ entityId: entity.id, name: 'bench', permissions: ['leads.view', 'cartera.leads_list.view', 'cartera.export_excel', 'custom_field_types.view'] });
  await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id });
  const groups = Math.ceil(LEADS / 10);
  const e = entity.id;
  await db.execute(sql`insert into crm_group (entity_id, name, created_at) select ${e}, 'Group ' || g, now() - (g || ' minutes')::interval from generate_series(1, ${groups}) g`);
  // LEADS leads (no erp_id) plus LEADS/10 clients, ten records per group.
  await db.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
    select ${e}, (select min(id) from crm_group where entity_id = ${e}) + (i - 1) / 10, 'Lead ' || i, null, now() - (i || ' seconds')::interval
    from generate_series(1, ${LEADS}) i`);
  await db.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
    select ${e}, (select min(id) from crm_group where entity_id = ${e}) + (i - 1), 'Client ' || i, 'ERP-' || i, now() - (i || ' seconds')::interval
    from generate_series(1, ${Math.ceil(LEADS / 10)}) i`);
  await db.execute(sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where entity_id = ${e}`);
  await db.execute(sql`insert into group_assignment (entity_id, group_id, employee_id) select ${e}, id, ${employee.id} from crm_group where entity_id = ${e} and id % 2 = 0`);
  await db.execute(sql`insert into lead_assignment (entity_id, lead_id, employee_id) select ${e}, id, ${employee.id} from lead where entity_id = ${e} and id % 10 = 0`);
  await db.execute(sql`analyze`);
  const principal = await server.app.ctx.authenticator.principalFor(user.id, entity.id, 'web');
  if (!principal) throw new Error('bench member has no principal');
  const token = (await server.app.ctx.tokens.sign(claimsFor(principal))).token;
  return { entityId: e, token, sellerId: employee.id };
}

interface ExportFigures {
  bytes: number;
  seconds: number;
  baselineMb: number;
  peakMb: number;
}

/** On PostgreSQL: the export measured in a fresh child process (bench/records-export.child.ts) serving only it. */
async function measureExportInChild(databaseUrl: string, token: string): Promise<ExportFigures> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./records-export.child.ts', import.meta.url))], {
    env: { ...process.env, DATABASE_URL: databaseUrl, BENCH_TOKEN: token },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`export child exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as ExportFigures;
}

export async function run(): Promise<BenchSection> {
  const own = await throwawayDatabase('bench_records');
  const server = await startServer({ DATABASE_URL: own.url });
  try {
    const seedStart = performance.now();
    const { token, sellerId } = await seed(server);
    if (process.env.BENCH_RECORDS_SEED_ONLY) throw new Error('seed only');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const headers = { authorization: `Bearer ${token}` };
    // Same authentication work, no list query: separates the lists' own cost from the per-request auth and HTTP cost.
    const baseline = await measure({ title: 'GET /custom-field-types (auth-only baseline)', url: `${server.baseUrl}/custom-field-types`, headers, connections: 50 });
    const leads = await measure({ title: 'GET /leads?limit=50', url: `${server.baseUrl}/leads?limit=50`, headers, connections: 50 });
    const cartera = await measure({ title: 'GET /cartera/leads?limit=50', url: `${server.baseUrl}/cartera/leads?limit=50`, headers, connections: 50 });
    const filtered = await measure({
      title: 'GET /cartera/leads?limit=50&seller_id=… (derived seller filter)',
      url: `${server.baseUrl}/cartera/leads?limit=50&seller_id=${sellerId}`,
      headers,
      connections: 50,
    });
    const inChild = own.url !== undefined;
    const exp = own.url !== undefined ? await measureExportInChild(own.url, token) : await measureExport(`${server.baseUrl}/cartera/export.xlsx?kind=lead`, token);
    const exportRows = LEADS;
    const markdown = [
      `Load average at start: ${loadavg().map((n) => n.toFixed(1)).join(' / ')} on ${availableParallelism()} cores (shared machine).`,
      `Database: ${server.kind}; ${LEADS} leads and ${Math.ceil(LEADS / 10)} clients in ${Math.ceil(LEADS / 10)} groups, one contact each, seeded in ${seedSeconds.toFixed(1)} s.`,
      '',
      table([baseline, leads, cartera, filtered], baseline.title),
      '',
      `Export of ${exportRows} leads (cartera view, kind=lead): ${(exp.bytes / 1024 / 1024).toFixed(1)} MB xlsx in ${exp.seconds.toFixed(1)} s; ` +
        `server process RSS ${exp.baselineMb.toFixed(0)} MB before, peak ${exp.peakMb.toFixed(0)} MB during (sampled every 20 ms; ` +
        (inChild ? 'a fresh server process serving only the export, its reader discarding the body).' : 'PGlite: measured in the benchmark process itself, after the load runs).'),
    ].join('\n');
    return {
      title: 'Records and cartera (issue 3)',
      markdown,
      checks: [
        { name: `GET /leads?limit=50 p99 < ${P99_TARGET_MS} ms at 50 connections`, ok: leads.p99Ms < P99_TARGET_MS && leads.non2xx + leads.errors === 0, detail: `p99 ${leads.p99Ms} ms` },
        {
          name: `GET /cartera/leads?limit=50 p99 < ${P99_TARGET_MS} ms at 50 connections`,
          ok: cartera.p99Ms < P99_TARGET_MS && cartera.non2xx + cartera.errors === 0,
          detail: `p99 ${cartera.p99Ms} ms`,
        },
        { name: `xlsx export of ${exportRows} rows peak RSS < ${RSS_TARGET_MB} MB`, ok: exp.peakMb < RSS_TARGET_MB, detail: `peak ${exp.peakMb.toFixed(0)} MB` },
      ],
    };
  } finally {
    await server.close();
    await own.drop();
  }
}

// Run alone: `DATABASE_URL=postgres://... npx tsx bench/records.bench.ts`
if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await run();
  console.log(`## ${section.title}\n\n${section.markdown}\n`);
  for (const c of section.checks) console.log(`${c.ok ? 'ok' : 'FAILED'}: ${c.name} (${c.detail})`);
}
