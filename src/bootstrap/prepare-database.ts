/**
 * Opens the configured database and prepares it: migrations, the permission catalogue and the system
 * roles. Shared by the server start, the CLI and the tests so they all see the same schema.
 */
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';
import { holdSchemaLock, migrate, waitForCurrentSchema } from '../db/migrate.js';
import { seedPermissionCatalog } from '../modules/permissions/index.js';
import { createDirectoryService } from '../modules/identity/index.js';
import { transaction } from '../platform/transactions/transaction.js';

/**
 * Migrates (or, with `migrate: false`, waits up to `migrationWaitSeconds` for a schema another step migrated,
 * throwing when it is still behind), then writes the permission catalogue and the system roles (idempotent).
 */
export async function prepareDatabase(
  database: Database,
  options: { migrate?: boolean; migrationWaitSeconds?: number; onWait?: (missing: string) => void } = {},
): Promise<void> {
  if (options.migrate === false) await waitForCurrentSchema(database, options.migrationWaitSeconds ?? 60, options.onWait);
  else await migrate(database);
  await transaction(database.db, async ({ tx }) => {
    // Instances started together would otherwise race on the catalogue's and the role's unique keys.
    await holdSchemaLock(tx);
    await seedPermissionCatalog(tx);
    await createDirectoryService(tx).ensureSuperAdminRole();
  });
}

/**
 * Opens and prepares the database selected by `config` (PGlite under DATA_DIR, or DATABASE_URL); with
 * `migrateOnStart: false` it only checks (and waits for) a schema migrated by `npm run migrate`.
 */
export async function openPreparedDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'databasePoolSize' | 'tracing' | 'migrateOnStart' | 'migrationWaitSeconds'>>,
  onWait?: (missing: string) => void,
): Promise<Database> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    traced: config.tracing?.enabled === true,
  });
  try {
    await prepareDatabase(database, { migrate: config.migrateOnStart, migrationWaitSeconds: config.migrationWaitSeconds, onWait });
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}
