/**
 * Starts the service: configuration, database (migrated, or checked current with
 * `DATABASE_MIGRATE_ON_START=false`), demo data on a first embedded start, HTTP server. SIGTERM/SIGINT drain
 * it (docs/operations.md "Shutdown and rolling updates"): `/readyz` answers 503 at once, socket clients are
 * sent to reconnect elsewhere, after `SHUTDOWN_DELAY_SECONDS` new requests get 503 with `Retry-After`,
 * in-flight requests and jobs finish, the database closes; the process exits within `SHUTDOWN_DRAIN_SECONDS`.
 */
import { Redis } from 'ioredis';
import { ConfigError, loadConfig } from './config.js';
import { resolveSecrets } from './platform/secrets.js';
import { openPreparedDatabase } from './bootstrap/prepare-database.js';
import { describeDemo, isEmpty, seedDemo } from './bootstrap/demo-seed.js';
import { buildApp, wantsPrettyLogs } from './app.js';
import { startTracing } from './platform/telemetry/tracing.js';

async function main(): Promise<void> {
  try {
    process.loadEnvFile();
  } catch {
    // No .env file: the environment alone configures the service.
  }
  const config = loadConfig();
  // Before anything else runs, so that the first requests and statements are traced.
  const tracing =
    config.tracing.endpoint !== undefined ? startTracing({ serviceName: config.tracing.serviceName, endpoint: config.tracing.endpoint }) : undefined;
  const secrets = resolveSecrets(config);
  const database = await openPreparedDatabase(config, (missing) => console.warn(`waiting for the database schema (${missing}); run \`npm run migrate\``));
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) : undefined;
  const app = await buildApp({ config, database, secrets, redis, prettyLogs: wantsPrettyLogs(config) });
  for (const name of secrets.generated) {
    app.log.warn(`${name} is not set: using a generated value kept in ${config.dataDir}/secrets.json (never do this in production)`);
  }
  if (config.databaseUrl === undefined && (await isEmpty(database.db))) {
    app.log.info('\n' + describeDemo(await seedDemo(database.db)));
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    const { delaySeconds, drainSeconds } = config.shutdown;
    app.log.info({ signal, delaySeconds, drainSeconds }, 'shutting down: draining');
    const force = setTimeout(() => {
      app.log.error({ drainSeconds }, 'drain time exceeded: exiting with work still running');
      process.exit(1);
    }, drainSeconds * 1000).unref();
    try {
      app.drain.begin();
      // Clients reconnect through the load balancer to another instance, which replays what they miss.
      app.ctx.realtime.disconnectClients();
      if (delaySeconds > 0) await new Promise((r) => setTimeout(r, delaySeconds * 1000));
      // Stops accepting connections; requests in flight and running jobs finish, the sockets' server closes last.
      await app.close();
      await redis?.quit().catch(() => undefined);
      await database.close();
      await tracing?.shutdown();
      clearTimeout(force);
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // The address listened on, with the port the system chose when PORT is 0.
  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info(`API docs at ${address}/docs (database: ${database.kind})`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error(err);
  }
  process.exit(1);
});
