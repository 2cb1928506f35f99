/**
 * Child process of web-channel.bench.ts: the service alone in its own process with a web account (website token
 * `wt_bench`, no allowed origin: the visitors present the service's own origin) and the WhatsApp number of
 * interactions-server.child.ts, an agent holding `conversations.view_all`, and the widget's rate limits out of the
 * way (one address opens every visitor). Prints `{ baseUrl, token, kind }` when ready; stops on SIGTERM.
 */
import { startServer } from './lib.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { entityChannelAccount } from '../src/modules/interactions/model/entity-channel-account.table.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';

// Every visitor connects from 127.0.0.1 here: the per-address connection cap and the new-visitor limits are off.
const server = await startServer({
  LOG_LEVEL: 'warn',
  WIDGET_RATE_LIMIT_PER_IP: '100000000',
  WIDGET_RATE_LIMIT_PER_VISITOR: '100000',
  WIDGET_NEW_VISITORS_PER_RANGE: '100000000',
  WIDGET_NEW_VISITORS_PER_WEBSITE: '100000000',
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
});
const db = server.database.db;
const dir = createDirectoryService(db);
const entity = await dir.ensureEntity({ name: 'Bench' });
const user = await dir.upsertUser({ email: `bench-${Date.now()}@example.com`, name: 'Bench', password: 'bench-password' });
const employee = await dir.ensureEmployee({ userId: user.id, entityId: entity.id, name: 'Bench' });
const role = await dir.ensureRole({ entityId: entity.id, name: 'bench-agent', permissions: ['conversations.view_all', 'conversations.reply_any'] });
await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id, overrides: [] });
await db
  .insert(entityChannelAccount)
  .values([
    { entityId: entity.id, channelTypeCode: 'chatapp_api', externalAccountId: 'BENCH-PNID', displayName: 'Bench WhatsApp' },
    { entityId: entity.id, channelTypeCode: 'web', externalAccountId: 'wt_bench', displayName: 'Bench website' },
  ])
  .onConflictDoNothing();
const principal = await server.app.ctx.authenticator.principalFor(user.id, entity.id, 'web');
const token = (await server.app.ctx.tokens.sign(claimsFor(principal!))).token;
process.stdout.write(JSON.stringify({ baseUrl: server.baseUrl, token, kind: server.kind }) + '\n');

process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
