/**
 * Child process of interactions.bench.ts: the service alone in its own process (as in production), so
 * the load generator and the measuring Socket.IO client of the parent do not share its event loop.
 * Serves `/bench/select`, the raw primary-key route the webhook's targets are ratios of. Prints one JSON line
 * `{ baseUrl, token, kind }` when ready and stops on SIGTERM. Several instances
 * (scale-out.bench.ts) share `BENCH_SHARED_DATABASE_URL` and Redis at `BENCH_REDIS_URL`.
 */
import { startServer } from './lib.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { entityChannelAccount } from '../src/modules/interactions/model/entity-channel-account.table.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';

export const BENCH_PHONE_NUMBER_ID = 'BENCH-PNID';

const server = await startServer(
  {
    LOG_LEVEL: 'warn',
    ...(process.env.BENCH_SHARED_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_SHARED_DATABASE_URL } : {}),
    REDIS_URL: process.env.BENCH_REDIS_URL,
    // Smoke lanes (run.ts --lanes) run side by side on one Redis.
    REDIS_KEY_PREFIX: process.env.REDIS_KEY_PREFIX,
    REALTIME_RECOVERY_SECONDS: process.env.REALTIME_RECOVERY_SECONDS,
  },
  // The floor the webhook is measured against (issue 55), as in foundation-server.child.ts: one raw
  // primary-key SELECT, a named prepared statement, no authentication. Benchmark-only, never in the product.
  (app, database) => {
    app.get('/bench/select', { config: { auth: 'none' as const }, schema: { hide: true } }, async () => {
      const [row] = await database.preparedQuery('bench_select_user', 'select id, email, name from app_user where id = $1', [1]);
      return row;
    });
  },
);
const db = server.database.db;
const dir = createDirectoryService(db);
const entity = await dir.ensureEntity({ name: 'Bench' });
const user = await dir.upsertUser({ email: `bench-${Date.now()}@example.com`, name: 'Bench', password: 'bench-password' });
const employee = await dir.ensureEmployee({ userId: user.id, entityId: entity.id, name: 'Bench' });
// A supervisor's socket: conversations reach only members who may see them (SPEC visibility), and the
// benchmark's senders are new, so no conversation is anyone's yet.
const role = await dir.ensureRole({ entityId: entity.id, name: 'manager', permissions: ['conversations.view_all', 'conversations.reply_any'] });
await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id });
await db
  .insert(entityChannelAccount)
  .values({ entityId: entity.id, channelTypeCode: 'chatapp_api', externalAccountId: BENCH_PHONE_NUMBER_ID, displayName: 'Bench' })
  .onConflictDoNothing();
const principal = await server.app.ctx.authenticator.principalFor(user.id, entity.id, 'web');
const token = (await server.app.ctx.tokens.sign(claimsFor(principal!))).token;
process.stdout.write(JSON.stringify({ baseUrl: server.baseUrl, token, kind: server.kind }) + '\n');

process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
