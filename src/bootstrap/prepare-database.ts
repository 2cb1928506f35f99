/**
 * Opens the configured database and prepares it: migrations, the permission catalogue and the system
 * roles. Shared by the server start, the CLI and the tests so they all see the same schema.
 */
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { seedPermissionCatalog } from '../modules/permissions/index.js';
import { createDirectoryService } from '../modules/identity/index.js';

export async function prepareDatabase(database: Database): Promise<void> {
  await migrate(database);
  await seedPermissionCatalog(database.db);
  await createDirectoryService(database.db).ensureSuperAdminRole();
}

/** Opens and prepares the database selected by `config` (PGlite under DATA_DIR, or DATABASE_URL). */
export async function openPreparedDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'databasePoolSize' | 'tracing'>>): Promise<Database> {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, traced: config.tracing?.enabled === true });
  try {
    await prepareDatabase(database);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}
