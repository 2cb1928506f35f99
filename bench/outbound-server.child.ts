/**
 * Child process of outbound.bench.ts: the service alone in its own process, sending through the
 * communications simulator of the parent (COMMUNICATIONS_BASE_URL / COMMUNICATIONS_API_KEY in the
 * environment). Prints `{ baseUrl, token, kind }` when ready and stops on SIGTERM. Two instances share
 * `BENCH_SHARED_DATABASE_URL` in the crash run; each one's token is valid on both (one database, one secret).
 *
 * The agent answers every conversation of the entity as a team's agents do when their role holds
 * `conversations.view_all` and `conversations.reply_any` (docs/api/interactions.md, "Visibility"; migration
 * 0010 gave both to every role that existed before it): an employee without a role sees no conversation, so
 * each send would answer 404 (issue 55). The send path measured is the one every reply of such a team takes.
 */
import { startServer } from './lib.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { entityChannelAccount } from '../src/modules/interactions/model/entity-channel-account.table.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';

const server = await startServer({
  LOG_LEVEL: 'warn',
  COMMUNICATIONS_BASE_URL: process.env.COMMUNICATIONS_BASE_URL,
  COMMUNICATIONS_API_KEY: process.env.COMMUNICATIONS_API_KEY,
  DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE,
  // The crash run (outbound.bench.ts): two instances on one database, attempts of a killed one retaken soon.
  ...(process.env.BENCH_SHARED_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_SHARED_DATABASE_URL } : {}),
  QUEUE_MAINTENANCE_INTERVAL_SECONDS: process.env.QUEUE_MAINTENANCE_INTERVAL_SECONDS,
  COMMUNICATIONS_TIMEOUT_MS: process.env.COMMUNICATIONS_TIMEOUT_MS,
});
const db = server.database.db;
const dir = createDirectoryService(db);
const entity = await dir.ensureEntity({ name: 'Bench outbound' });
const user = await dir.upsertUser({ email: `bench-out-${Date.now()}@example.com`, name: 'Agent', password: 'bench-password' });
const employee = await dir.ensureEmployee({ userId: user.id, entityId: entity.id, name: 'Agent' });
const role = await dir.ensureRole({ entityId: entity.id, name: 'agent', permissions: ['conversations.view_all', 'conversations.reply_any'] });
await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id, overrides: [] });
await db
  .insert(entityChannelAccount)
  .values({ entityId: entity.id, channelTypeCode: 'chatapp_api', externalAccountId: 'BENCH-OUT', displayName: 'Bench' })
  .onConflictDoNothing();
const principal = await server.app.ctx.authenticator.principalFor(user.id, entity.id, 'web');
const token = (await server.app.ctx.tokens.sign(claimsFor(principal!))).token;
process.stdout.write(JSON.stringify({ baseUrl: server.baseUrl, token, kind: server.kind }) + '\n');

process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
