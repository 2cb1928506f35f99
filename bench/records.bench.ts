/**
 * Records and cartera under load: 100k leads (10k groups, 100k contacts, seller assignments on groups
 * and leads), then `GET /leads?limit=50` and `GET /cartera/leads?limit=50` at 50 connections, and the
 * streamed xlsx export of all 100k rows with the server's RSS sampled every 20 ms while the body is
 * read and discarded. On PostgreSQL (DATABASE_URL) it works in its own throw-away database. The service
 * runs in its own process (records-server.child.ts), as in production, and the export is measured in a
 * fresh one (records-export.child.ts); `BENCH_CPU_PROF=<dir>` profiles them.
 * Targets (issue 3): p99 < 50 ms for both lists; export peak RSS < 300 MB.
 */
import { availableParallelism, loadavg } from 'node:os';
import { measure, measureExport, rssOfProcess, startServiceProcess, table, type BenchSection, throwawayDatabase } from './lib.js';
import type { RecordsService } from './records-server.child.js';

const P99_TARGET_MS = 50;
/** Load run before each measurement and discarded (see `MeasureOptions.warmupSeconds`). */
const WARMUP_SECONDS = 2;
const RSS_TARGET_MB = 300;

interface ExportFigures {
  bytes: number;
  seconds: number;
  baselineMb: number;
  peakMb: number;
}

export async function run(): Promise<BenchSection> {
  const own = await throwawayDatabase('bench_records');
  // The service (and its seed) runs in its own process: autocannon here must not share its event loop.
  const service = await startServiceProcess<RecordsService>(new URL('./records-server.child.ts', import.meta.url), { DATABASE_URL: own.url });
  let stopped = false;
  const stopService = async () => {
    if (!stopped) await service.stop();
    stopped = true;
  };
  try {
    const server = service.ready;
    const { token, sellerId, leads: leadCount, seedSeconds } = server;
    if (process.env.BENCH_RECORDS_SEED_ONLY) throw new Error('seed only');
    const headers = { authorization: `Bearer ${token}` };
    // Same authentication work, no list query: separates the lists' own cost from the per-request auth and HTTP cost.
    const baseline = await measure({ title: 'GET /custom-field-types (auth-only baseline)', url: `${server.baseUrl}/custom-field-types`, headers, connections: 50, warmupSeconds: WARMUP_SECONDS });
    const leads = await measure({ title: 'GET /leads?limit=50', url: `${server.baseUrl}/leads?limit=50`, headers, connections: 50, warmupSeconds: WARMUP_SECONDS });
    const cartera = await measure({ title: 'GET /cartera/leads?limit=50', url: `${server.baseUrl}/cartera/leads?limit=50`, headers, connections: 50, warmupSeconds: WARMUP_SECONDS });
    const filtered = await measure({
      title: 'GET /cartera/leads?limit=50&seller_id=… (derived seller filter)',
      url: `${server.baseUrl}/cartera/leads?limit=50&seller_id=${sellerId}`,
      headers,
      connections: 50,
      warmupSeconds: WARMUP_SECONDS,
    });
    const inChild = own.url !== undefined;
    let exp: ExportFigures;
    if (own.url !== undefined) {
      // A fresh server process serving only the export, on the same database.
      await stopService();
      const exporter = await startServiceProcess<ExportFigures>(new URL('./records-export.child.ts', import.meta.url), { DATABASE_URL: own.url, BENCH_TOKEN: token });
      exp = exporter.ready;
      await exporter.stop();
    } else {
      // PGlite lives inside the service process: measure its RSS there, after the load runs.
      exp = await measureExport(`${server.baseUrl}/cartera/export.xlsx?kind=lead`, token, () => rssOfProcess(service.pid));
    }
    const exportRows = leadCount;
    const markdown = [
      `Load average at start: ${loadavg().map((n) => n.toFixed(1)).join(' / ')} on ${availableParallelism()} cores (shared machine).`,
      `Database: ${server.kind}; ${leadCount} leads and ${Math.ceil(leadCount / 10)} clients in ${Math.ceil(leadCount / 10)} groups, one contact each, seeded in ${seedSeconds.toFixed(1)} s.`,
      `Each row: ${WARMUP_SECONDS} s of the same load discarded, then ${process.env.BENCH_SECONDS ?? 8} s measured at 50 connections; the service runs in its own process.`,
      '',
      table([baseline, leads, cartera, filtered], baseline.title),
      '',
      `Export of ${exportRows} leads (cartera view, kind=lead): ${(exp.bytes / 1024 / 1024).toFixed(1)} MB xlsx in ${exp.seconds.toFixed(1)} s; ` +
        `server process RSS ${exp.baselineMb.toFixed(0)} MB before, peak ${exp.peakMb.toFixed(0)} MB during (sampled every 20 ms; ` +
        (inChild ? 'a fresh server process serving only the export, its reader discarding the body).' : 'PGlite: the service process, after the load runs).'),
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
    await stopService();
    await own.drop();
  }
}

// Run alone: `DATABASE_URL=postgres://... npx tsx bench/records.bench.ts`
if (import.meta.url === `file://${process.argv[1]}`) {
  const section = await run();
  console.log(`## ${section.title}\n\n${section.markdown}\n`);
  for (const c of section.checks) console.log(`${c.ok ? 'ok' : 'FAILED'}: ${c.name} (${c.detail})`);
}
