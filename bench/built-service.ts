/**
 * For the benchmark children that serve the production build (records-server.child.ts,
 * foundation-server.child.ts): starts dist/ as `node dist/main.js` does, configured by environment only,
 * lets the child register its benchmark-only routes, listens, and on SIGTERM closes the server, Redis and
 * the database, then exits.
 */
import { Redis } from 'ioredis';
import type { App } from '../src/app.js';
import type { Database } from '../src/db/client.js';

type Dist<T> = Promise<T>;

/** The URL of a built module under dist/ (`path` relative to it, e.g. `app.js`). */
export const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;

/** Starts the build; `register` adds routes before it listens. Resolves once listening. */
export async function serveBuilt(register: (app: App, database: Database) => void): Promise<void> {
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
  register(app, database);
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => redis?.disconnect())
      .then(() => database.close())
      .then(() => process.exit(0));
  });
  await app.listen({ host: config.host, port: config.port });
}
