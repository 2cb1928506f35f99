/**
 * Records and cartera under load (issues 3 and 29): 100k leads (10k groups of ten leads and a client, one
 * contact per record, a seller on half the groups and a tenth of the records), then at 50 connections:
 * the auth-only baseline, `GET /leads?limit=50`, `GET /cartera/leads?limit=50` and the seller-filtered
 * portfolio, each next to its ceiling: a bare authenticated route running the list route's own SQL (same
 * repository call, filters and page, the caller's membership read along as the routes read it) registered
 * by the benchmark only (records-server.child.ts). Then the
 * streamed xlsx export of every lead with the serving process's RSS sampled every 20 ms. The
 * `EXPLAIN (ANALYZE, BUFFERS)` plans of the list statements are written to bench/plans/.
 * `BENCH_RECORDS_SCALE_TO=1000000` then grows the same data tenfold in place and measures the lists, the
 * plans and the export again: a list's p99 must not grow with the table.
 * The service runs as in production: the build in dist/, in its own process; the export in a fresh one.
 * On PostgreSQL (DATABASE_URL) in a throw-away database, otherwise in a throw-away embedded data directory.
 * `BENCH_CPU_PROF=<dir>` profiles the service processes.
 * Targets: the lists at >= 50% of the baseline and >= 80% of their ceilings, the seller filter >= 40% of
 * the baseline (PostgreSQL); p99 < 50 ms; at the larger size each list's p99 within 1.5x; export peak RSS < 300 MB.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import type { Database } from '../src/db/client.js';
import {
  alternatingRounds,
  type Measurement,
  measure,
  measureExport,
  SMOKE,
  startProductionService,
  table,
  type BenchSection,
  throwawayDatabase,
} from './lib.js';
import { growRecords, seedRecords } from './records.seed.js';
import { explainListStatements } from './records.plans.js';

const P99_TARGET_MS = 50;
/** Load run before each measurement and discarded (see `MeasureOptions.warmupSeconds`). */
const WARMUP_SECONDS = 2;
const RSS_TARGET_MB = 300;
const LEADS = Number(process.env.BENCH_RECORDS_LEADS ?? 100_000);
/** Alternating rounds per row (`BENCH_ROUNDS`), medians reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SCALE_TO = process.env.BENCH_RECORDS_SCALE_TO ? Number(process.env.BENCH_RECORDS_SCALE_TO) : undefined;
const SERVER_CHILD = new URL('./records-server.child.ts', import.meta.url);

interface Row {
  title: string;
  path: string;
  /** Title of the row this one is the ceiling of. */
  ceilingOf?: string;
}

const BASELINE = 'GET /custom-field-types (auth-only baseline)';
const LEADS_ROW = 'GET /leads?limit=50';
const CARTERA_ROW = 'GET /cartera/leads?limit=50';
const SELLER_ROW = 'GET /cartera/leads?limit=50&seller_id=… (derived seller filter)';

function rowsOf(sellerId: number, withCeilings: boolean): Row[] {
  const rows: Row[] = [
    // Same authentication work, no list query: separates the lists' own cost from the per-request auth and HTTP cost.
    { title: BASELINE, path: '/custom-field-types' },
    { title: LEADS_ROW, path: '/leads?limit=50' },
    { title: 'ceiling: the same SQL behind a bare authenticated route (leads)', path: '/bench/ceiling/leads', ceilingOf: LEADS_ROW },
    { title: CARTERA_ROW, path: '/cartera/leads?limit=50' },
    { title: 'ceiling: the same SQL behind a bare authenticated route (cartera)', path: '/bench/ceiling/cartera', ceilingOf: CARTERA_ROW },
    { title: SELLER_ROW, path: `/cartera/leads?limit=50&seller_id=${sellerId}` },
    {
      title: 'ceiling: the same SQL behind a bare authenticated route (cartera, seller)',
      path: `/bench/ceiling/cartera?seller_id=${sellerId}`,
      ceilingOf: SELLER_ROW,
    },
  ];
  return withCeilings ? rows : rows.filter((r) => !r.ceilingOf);
}

/** Measures `rows` in one service process (the production build plus the benchmark's ceiling routes). */
async function measureRows(where: { DATABASE_URL?: string | undefined; DATA_DIR?: string }, token: string, rows: Row[]): Promise<Measurement[]> {
  const service = await startProductionService(where, SERVER_CHILD);
  const headers = { authorization: `Bearer ${token}` };
  const measured: Measurement[] = [];
  try {
    // Every row's load once first, so that no row pays for warming the process and the database's
    // caches for the next (a route measured right after the baseline would, and its ceiling would not).
    if (!SMOKE)
      for (const r of rows) await measure({ title: r.title, url: `${service.baseUrl}${r.path}`, headers, connections: 50, durationSeconds: WARMUP_SECONDS });
    // Then alternating rounds and medians: a burst of the shared machine's load falls on one round, not one row.
    measured.push(
      ...(await alternatingRounds(
        ROUNDS,
        rows.map((r) => async () => {
          const m = await measure({ title: r.title, url: `${service.baseUrl}${r.path}`, headers, connections: 50, warmupSeconds: WARMUP_SECONDS });
          // As it comes: a long run stopped later keeps what it measured.
          console.log(`  ${m.title}: ${m.requestsPerSecond.toFixed(0)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, errors ${m.non2xx + m.errors}`);
          return m;
        }),
      )),
    );
  } finally {
    await service.stop();
  }
  return measured;
}

const byTitle = (ms: Measurement[], title: string) => ms.find((m) => m.title === title)!;
const pct = (n: number) => `${(n * 100).toFixed(0)}%`;

/** The ceilings' table: each list route, its ceiling and the ratio. */
function ceilingTable(ms: Measurement[], rows: Row[]): string {
  const lines = rows
    .filter((r) => r.ceilingOf)
    .map((r) => {
      const route = byTitle(ms, r.ceilingOf!);
      const ceiling = byTitle(ms, r.title);
      return `| ${route.title} | ${route.requestsPerSecond.toFixed(0)} | ${ceiling.requestsPerSecond.toFixed(0)} | ${pct(route.requestsPerSecond / ceiling.requestsPerSecond)} |`;
    });
  return ['| route | route req/s | ceiling req/s | route / ceiling |', '|---|---|---|---|', ...lines].join('\n');
}

async function withDatabase<T>(own: { url: string | undefined }, dataDir: string | undefined, work: (db: Database) => Promise<T>): Promise<T> {
  // Opened from here only while the service is stopped (the embedded database admits one process at a time).
  const database = await openPreparedDatabase({ databaseUrl: own.url, dataDir: dataDir ?? ':memory:' });
  return work(database).finally(() => database.close());
}

export async function run(): Promise<BenchSection> {
  const own = await throwawayDatabase('bench_records');
  const dataDir = own.url === undefined ? mkdtempSync(join(tmpdir(), 'bench-records-')) : undefined;
  const where = own.url !== undefined ? { DATABASE_URL: own.url } : { DATA_DIR: dataDir! };
  const plansDir = new URL('./plans/', import.meta.url);
  try {
    const seed = await withDatabase(own, dataDir, (db) => seedRecords(db, LEADS));
    const { token, sellerId, userId, entityId, seedSeconds } = seed;
    if (process.env.BENCH_RECORDS_SEED_ONLY) throw new Error('seed only');
    const kind = own.url !== undefined ? 'postgres' : 'pglite';
    const writePlans = async (leads: number) => {
      const plans = await withDatabase(own, dataDir, (db) => explainListStatements(db, { userId, entityId }, sellerId));
      mkdirSync(plansDir, { recursive: true });
      for (const p of plans)
        writeFileSync(new URL(`${p.name}.${kind}.${leads}.txt`, plansDir), `-- ${p.title}\n-- ${p.text.replace(/\s+/g, ' ')}\n\n${p.plan}\n`);
      return plans;
    };

    const rows = rowsOf(sellerId, true);
    const measured = await measureRows(where, token, rows);
    const plans = await writePlans(LEADS);
    const baseline = byTitle(measured, BASELINE);
    const [leads, cartera, seller] = [LEADS_ROW, CARTERA_ROW, SELLER_ROW].map((t) => byTitle(measured, t)) as [Measurement, Measurement, Measurement];
    const ceilingOf = (title: string) => byTitle(measured, rows.find((r) => r.ceilingOf === title)!.title);

    // A fresh service process serving only the export, on the same database.
    const exportOf = async (leadCount: number) => {
      const exporter = await startProductionService(where);
      const exp = await measureExport(`${exporter.baseUrl}/cartera/export.xlsx?kind=lead`, token, exporter.pid).finally(() => exporter.stop());
      return {
        exp,
        line:
          `Export of ${leadCount} leads (cartera view, kind=lead): ${(exp.bytes / 1024 / 1024).toFixed(1)} MB xlsx in ${exp.seconds.toFixed(1)} s; ` +
          `service process RSS ${exp.baselineMb.toFixed(0)} MB before, peak ${exp.peakMb.toFixed(0)} MB during (sampled every 20 ms; a fresh service process serving only the export; the reader, in the benchmark's process, discards the body).`,
      };
    };
    const small = await exportOf(LEADS);

    const markdown = [
      `Load average at start: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' / ')} on ${availableParallelism()} cores (shared machine).`,
      `Database: ${kind}; ${LEADS} leads and ${Math.ceil(LEADS / 10)} clients in ${Math.ceil(LEADS / 10)} groups, one contact each, seeded in ${seedSeconds.toFixed(1)} s.`,
      `The service runs as in production: the \`npm run build\` output in its own process (bench/records-server.child.ts starts it as dist/main.js does and adds the benchmark-only ceiling routes). Every row's load first run once for ${WARMUP_SECONDS} s and discarded, then ${ROUNDS} alternating rounds of every row (${WARMUP_SECONDS} s of the same load discarded, then ${process.env.BENCH_SECONDS ?? 8} s measured at 50 connections), medians.`,
      '',
      table(measured, baseline.title),
      '',
      "Each list route against its ceiling (the same repository call and SQL, the caller's membership read along, behind a bare authenticated route, the stored items as JSON text, joined as they are):",
      '',
      ceilingTable(measured, rows),
      '',
      `Plans (\`EXPLAIN (ANALYZE, BUFFERS)\`, after the load): ${plans.map((p) => `\`bench/plans/${p.name}.${kind}.${LEADS}.txt\``).join(', ')}.`,
      '',
      small.line,
    ];
    const checks: BenchSection['checks'] = [
      {
        name: `GET /leads?limit=50 p99 < ${P99_TARGET_MS} ms at 50 connections`,
        ok: leads.p99Ms < P99_TARGET_MS && leads.non2xx + leads.errors === 0,
        detail: `p99 ${leads.p99Ms} ms`,
      },
      {
        name: `GET /cartera/leads?limit=50 p99 < ${P99_TARGET_MS} ms at 50 connections`,
        ok: cartera.p99Ms < P99_TARGET_MS && cartera.non2xx + cartera.errors === 0,
        detail: `p99 ${cartera.p99Ms} ms`,
      },
      {
        name: `xlsx export of ${LEADS} rows peak RSS < ${RSS_TARGET_MB} MB`,
        ok: small.exp.peakMb < RSS_TARGET_MB,
        detail: `peak ${small.exp.peakMb.toFixed(0)} MB`,
      },
    ];
    if (kind === 'postgres') {
      const share = (m: Measurement) => m.requestsPerSecond / baseline.requestsPerSecond;
      const ofCeiling = (m: Measurement) => m.requestsPerSecond / ceilingOf(m.title).requestsPerSecond;
      checks.push(
        { name: 'GET /leads >= 50% of the auth-only baseline (PostgreSQL)', ok: share(leads) >= 0.5, detail: pct(share(leads)) },
        { name: 'GET /leads >= 80% of its raw-SQL ceiling (PostgreSQL)', ok: ofCeiling(leads) >= 0.8, detail: pct(ofCeiling(leads)) },
        { name: 'GET /cartera/leads >= 50% of the auth-only baseline (PostgreSQL)', ok: share(cartera) >= 0.5, detail: pct(share(cartera)) },
        { name: 'GET /cartera/leads >= 80% of its raw-SQL ceiling (PostgreSQL)', ok: ofCeiling(cartera) >= 0.8, detail: pct(ofCeiling(cartera)) },
        { name: 'seller-filtered portfolio >= 40% of the auth-only baseline (PostgreSQL)', ok: share(seller) >= 0.4, detail: pct(share(seller)) },
      );
    }

    if (SCALE_TO !== undefined && SCALE_TO > LEADS) {
      console.log(`${markdown.join('\n')}\n\ngrowing to ${SCALE_TO} leads`);
      const growSeconds = await withDatabase(own, dataDir, (db) => growRecords(db, { entityId, sellerId }, LEADS, SCALE_TO));
      const lists = rowsOf(sellerId, false);
      const large = await measureRows(where, token, lists);
      const largePlans = await writePlans(SCALE_TO);
      const big = await exportOf(SCALE_TO);
      const growth = lists
        .filter((r) => r.title !== BASELINE)
        .map((r) => {
          const [a, b] = [byTitle(measured, r.title), byTitle(large, r.title)];
          return { title: r.title, a, b, ratio: b.p99Ms / a.p99Ms };
        });
      markdown.push(
        '',
        `#### The same lists at ${SCALE_TO} leads`,
        '',
        `Grown in place to ${SCALE_TO} leads and ${Math.ceil(SCALE_TO / 10)} clients in ${growSeconds.toFixed(1)} s (set-based SQL, the read model kept by its triggers), then measured in a new service process:`,
        '',
        table(large, BASELINE),
        '',
        `| list | p99 at ${LEADS} | p99 at ${SCALE_TO} | growth |`,
        '|---|---|---|---|',
        ...growth.map((g) => `| ${g.title} | ${g.a.p99Ms.toFixed(1)} | ${g.b.p99Ms.toFixed(1)} | ${g.ratio.toFixed(2)}x |`),
        '',
        `Plans: ${largePlans.map((p) => `\`bench/plans/${p.name}.${kind}.${SCALE_TO}.txt\``).join(', ')}.`,
        '',
        big.line,
      );
      for (const g of growth) {
        checks.push({
          name: `${g.title} p99 at ${SCALE_TO} within 1.5x of ${LEADS}`,
          ok: g.ratio <= 1.5,
          detail: `${g.a.p99Ms} -> ${g.b.p99Ms} ms (${g.ratio.toFixed(2)}x)`,
        });
      }
      checks.push({
        name: `xlsx export of ${SCALE_TO} rows peak RSS < ${RSS_TARGET_MB} MB`,
        ok: big.exp.peakMb < RSS_TARGET_MB,
        detail: `peak ${big.exp.peakMb.toFixed(0)} MB`,
      });
    }
    return { title: 'Records and cartera (issues 3 and 29)', markdown: markdown.join('\n'), checks };
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
