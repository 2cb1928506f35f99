/**
 * Child process of foundation.bench.ts: the production build (dist/, as `node dist/main.js` runs it,
 * configured by environment only) plus two benchmark-only routes registered here, never in the product:
 * `/bench/hello` (no database) and `/bench/select` (one raw primary-key SELECT through the driver, no
 * authentication), the floors `GET /api/permissions/me` is measured against. The SELECT is a named
 * prepared statement, as the principal's is, so the floor pays no parsing or planning that /me does not. `/readyz` answers once
 * listening; SIGTERM closes the server and the database.
 */
import { Redis } from 'ioredis';

type Dist<T> = Promise<T>;
const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;

// The built modules, typed as their sources.
const [{ loadConfig }, { resolveSecrets }, { openPreparedDatabase }, { buildApp }] = await Promise.all([
  import(dist('config.js')) as Dist<typeof import('../src/config.js')>,
  import(dist('platform/secrets.js')) as Dist<typeof import('../src/platform/secrets.js')>,
  import(dist('bootstrap/prepare-database.js')) as Dist<typeof import('../src/bootstrap/prepare-database.js')>,
  import(dist('app.js')) as Dist<typeof import('../src/app.js')>,
]);

const config = loadConfig();
const secrets = resolveSecrets(config);
const database = await openPreparedDatabase(config);
const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) : undefined;
const app = await buildApp({ config, database, secrets, redis });

const floor = { config: { auth: 'none' as const }, schema: { hide: true } };
app.get('/bench/hello', floor, async () => ({ hello: 'world' }));
app.get('/bench/select', floor, async () => {
  const [row] = await database.preparedQuery('bench_select_user', 'select id, email, name from app_user where id = $1', [1]);
  return row;
});

process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => redis?.disconnect())
    .then(() => database.close())
    .then(() => process.exit(0));
});
await app.listen({ host: config.host, port: config.port });
