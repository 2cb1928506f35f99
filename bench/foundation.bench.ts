/**
 * Issue "Service foundation" benchmark: the cost of authentication and permission resolution measured
 * against the physical floor of a route that must touch the database (one raw primary-key SELECT through
 * the driver) and a bare Fastify route. Target on PostgreSQL: `GET /api/permissions/me` >= 80% of the
 * raw-SELECT route's req/s. The three routes are measured in alternating rounds and compared by their medians.
 * The service runs as in production: the build in dist/, in its own process (foundation-server.child.ts adds
 * the two floor routes), so the load generator does not share its event loop. On PostgreSQL (DATABASE_URL)
 * in a throw-away database, otherwise in a throw-away embedded data directory, seeded with the demo data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import { seedDemo } from '../src/bootstrap/demo-seed.js';
import { alternatingRounds, measure, signBenchToken, startProductionService, table, throwawayDatabase, type BenchSection } from './lib.js';

const SERVER_CHILD = new URL('./foundation-server.child.ts', import.meta.url);

/** Seeds the demo data into the database the service will open and returns a token of its seller (entity 1). */
async function seedSeller(where: { url: string | undefined; dataDir: string | undefined }): Promise<string> {
  const database = await openPreparedDatabase({ databaseUrl: where.url, dataDir: where.dataDir ?? ':memory:' });
  try {
    const demo = await seedDemo(database.db);
    return await signBenchToken(database, demo.identity.sellerUserId, 1);
  } finally {
    await database.close();
  }
}

export async function run(): Promise<BenchSection> {
  const own = await throwawayDatabase('bench_foundation');
  const dataDir = own.url === undefined ? mkdtempSync(join(tmpdir(), 'bench-foundation-')) : undefined;
  const kind = own.url === undefined ? 'pglite' : 'postgres';
  try {
    const token = await seedSeller({ url: own.url, dataDir });
    const service = await startProductionService(own.url !== undefined ? { DATABASE_URL: own.url } : { DATA_DIR: dataDir! }, SERVER_CHILD);
    const base = service.baseUrl;
    const seconds = Number(process.env.BENCH_SECONDS ?? 8);
    const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
    const results = await alternatingRounds(rounds, [
      () => measure({ title: 'hello world (no database)', url: `${base}/bench/hello`, durationSeconds: seconds }),
      () => measure({ title: 'raw primary-key SELECT', url: `${base}/bench/select`, durationSeconds: seconds }),
      () =>
        measure({
          title: 'GET /api/permissions/me (JWT + membership + permissions)',
          url: `${base}/api/permissions/me`,
          headers: { authorization: `Bearer ${token}` },
          durationSeconds: seconds,
        }),
    ]).finally(() => service.stop());
    const [, select, me] = results;
    const ratio = me!.requestsPerSecond / select!.requestsPerSecond;
    return {
      title: `Foundation: authentication and permission resolution (${kind})`,
      markdown: `The service in its own process (the production build). ${rounds} alternating rounds of ${seconds} s per route, medians.\n\n${table(results, 'raw primary-key SELECT')}\n\nAuthenticated, permission-resolved route at **${(ratio * 100).toFixed(0)}%** of the raw-SELECT route (target on PostgreSQL: >= 80%).`,
      checks:
        kind === 'postgres' ? [{ name: 'permissions/me >= 80% of raw SELECT (PostgreSQL)', ok: ratio >= 0.8, detail: `${(ratio * 100).toFixed(0)}%` }] : [],
    };
  } finally {
    await own.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
