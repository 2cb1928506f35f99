/**
 * Records and cartera under load: 100k leads (10k groups, 100k contacts, seller assignments on groups
 * and leads), then `GET /leads?limit=50` and `GET /cartera/leads?limit=50` at 50 connections, and the
 * streamed xlsx export of all 100k rows with the serving process's RSS sampled every 20 ms while the body
 * is read and discarded. The service runs as in production: the build in dist/, in its own process
 * (`startProductionService`); the export is measured in a fresh one. On PostgreSQL (DATABASE_URL) it works
 * in its own throw-away database, otherwise in a throw-away embedded data directory.
 * `BENCH_CPU_PROF=<dir>` profiles the service processes.
 * Targets (issue 3): p99 < 50 ms for both lists; export peak RSS < 300 MB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { type Measurement, measure, measureExport, startProductionService, table, type BenchSection, throwawayDatabase } from './lib.js';
import { seedRecords } from './records.seed.js';

const P99_TARGET_MS = 50;
/** Load run before each measurement and discarded (see `MeasureOptions.warmupSeconds`). */
const WARMUP_SECONDS = 2;
const RSS_TARGET_MB = 300;
const LEADS = Number(process.env.BENCH_RECORDS_LEADS ?? 100_000);

export async function run(): Promise<BenchSection> {
  const own = await throwawayDatabase('bench_records');
  const dataDir = own.url === undefined ? mkdtempSync(join(tmpdir(), 'bench-records-')) : undefined;
  const where = own.url !== undefined ? { DATABASE_URL: own.url } : { DATA_DIR: dataDir! };
  try {
    // Seeded from here, before the service starts (the embedded database admits one process at a time).
    const seeding = await openPreparedDatabase({ databaseUrl: own.url, dataDir: dataDir ?? ':memory:' });
    const kind = seeding.kind;
    const { token, sellerId, seedSeconds } = await seedRecords(seeding, LEADS).finally(() => seeding.close());
    if (process.env.BENCH_RECORDS_SEED_ONLY) throw new Error('seed only');

    const service = await startProductionService(where);
    const headers = { authorization: `Bearer ${token}` };
    const at = (path: string) => `${service.baseUrl}${path}`;
    const runs = [
      // Same authentication work, no list query: separates the lists' own cost from the per-request auth and HTTP cost.
      { title: 'GET /custom-field-types (auth-only baseline)', path: '/custom-field-types' },
      { title: 'GET /leads?limit=50', path: '/leads?limit=50' },
      { title: 'GET /cartera/leads?limit=50', path: '/cartera/leads?limit=50' },
      { title: 'GET /cartera/leads?limit=50&seller_id=… (derived seller filter)', path: `/cartera/leads?limit=50&seller_id=${sellerId}` },
    ];
    const measured: Measurement[] = [];
    try {
      for (const r of runs) measured.push(await measure({ title: r.title, url: at(r.path), headers, connections: 50, warmupSeconds: WARMUP_SECONDS }));
    } finally {
      await service.stop();
    }
    const [baseline, leads, cartera] = measured as [Measurement, Measurement, Measurement, Measurement];

    // A fresh service process serving only the export, on the same database.
    const exporter = await startProductionService(where);
    const exp = await measureExport(`${exporter.baseUrl}/cartera/export.xlsx?kind=lead`, token, exporter.pid).finally(() => exporter.stop());
    const markdown = [
      `Load average at start: ${loadavg().map((n) => n.toFixed(1)).join(' / ')} on ${availableParallelism()} cores (shared machine).`,
      `Database: ${kind}; ${LEADS} leads and ${Math.ceil(LEADS / 10)} clients in ${Math.ceil(LEADS / 10)} groups, one contact each, seeded in ${seedSeconds.toFixed(1)} s.`,
      `The service runs as in production: \`node dist/main.js\` (the \`npm run build\` output) in its own process. Each row: ${WARMUP_SECONDS} s of the same load discarded, then ${process.env.BENCH_SECONDS ?? 8} s measured at 50 connections.`,
      '',
      table(measured, baseline.title),
      '',
      `Export of ${LEADS} leads (cartera view, kind=lead): ${(exp.bytes / 1024 / 1024).toFixed(1)} MB xlsx in ${exp.seconds.toFixed(1)} s; ` +
        `service process RSS ${exp.baselineMb.toFixed(0)} MB before, peak ${exp.peakMb.toFixed(0)} MB during (sampled every 20 ms; a fresh service process serving only the export; the reader, in the benchmark's process, discards the body).`,
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
        { name: `xlsx export of ${LEADS} rows peak RSS < ${RSS_TARGET_MB} MB`, ok: exp.peakMb < RSS_TARGET_MB, detail: `peak ${exp.peakMb.toFixed(0)} MB` },
      ],
    };
  } finally {
    await own.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

// Run alone: `DATABASE_URL=postgres://... npx tsx bench/records.bench.ts`
if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await run();
  console.log(`## ${section.title}\n\n${section.markdown}\n`);
  for (const c of section.checks) console.log(`${c.ok ? 'ok' : 'FAILED'}: ${c.name} (${c.detail})`);
}
