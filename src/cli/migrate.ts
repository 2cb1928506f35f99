/**
 * `npm run migrate` (compiled: `node dist/cli/migrate.js`): the release step of a deployment. Applies the
 * database migrations and the job queue's schema, then the permission catalogue and system roles, under the
 * schema advisory lock (src/db/migrate.ts), and exits 0; exits 1 with the failure otherwise. Instances
 * started with `DATABASE_MIGRATE_ON_START=false` wait for this step (docs/operations.md "Deploying").
 */
import { loadConfig } from '../config.js';
import { openPreparedDatabase } from '../bootstrap/prepare-database.js';
import { schemaStatus } from '../db/migrate.js';

try {
  process.loadEnvFile();
} catch {
  // No .env file: the environment alone configures the step.
}
try {
  const started = Date.now();
  const config = { ...loadConfig(), migrateOnStart: true };
  const database = await openPreparedDatabase(config);
  try {
    const status = await schemaStatus(database);
    console.log(`database schema current (${database.kind}; ${status.pendingMigrations.length} pending) in ${Date.now() - started} ms`);
  } finally {
    await database.close();
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
