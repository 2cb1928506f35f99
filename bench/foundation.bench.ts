/**
 * Issue "Service foundation" benchmark: the cost of authentication and permission resolution measured
 * against the physical floor of a route that must touch the database (one raw primary-key SELECT through
 * the driver) and a bare Fastify route. Target on PostgreSQL: `GET /api/permissions/me` >= 80% of the
 * raw-SELECT route's req/s. The three routes are measured in alternating rounds and compared by their medians.
 */
import { seedDemo } from '../src/bootstrap/demo-seed.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { alternatingRounds, measure, startServer, table, type BenchSection } from './lib.js';

export async function run(): Promise<BenchSection> {
  const server = await startServer({}, (app, database) => {
    app.get('/bench/hello', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ hello: 'world' }));
    app.get('/bench/select', { config: { auth: 'none' }, schema: { hide: true } }, async () => {
      const { rows } = await database.executeSql('select id, email, name from app_user where id = $1', [1]);
      return rows[0];
    });
  });
  try {
    const demo = await seedDemo(server.database.db);
    const principal = await server.app.ctx.authenticator.principalFor(demo.identity.sellerUserId, 1, 'web');
    const { token } = await server.app.ctx.tokens.sign(claimsFor(principal!));
    const base = server.baseUrl;
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
    ]);
    const [, select, me] = results;
    const ratio = me!.requestsPerSecond / select!.requestsPerSecond;
    return {
      title: `Foundation: authentication and permission resolution (${server.kind})`,
      markdown: `${rounds} alternating rounds of ${seconds} s per route, medians.\n\n${table(results, 'raw primary-key SELECT')}\n\nAuthenticated, permission-resolved route at **${(ratio * 100).toFixed(0)}%** of the raw-SELECT route (target on PostgreSQL: >= 80%).`,
      checks:
        server.kind === 'postgres'
          ? [{ name: 'permissions/me >= 80% of raw SELECT (PostgreSQL)', ok: ratio >= 0.8, detail: `${(ratio * 100).toFixed(0)}%` }]
          : [],
    };
  } finally {
    await server.close();
  }
}
