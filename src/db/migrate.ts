/**
 * Applies the committed drizzle-kit migrations in `migrations/`. On PostgreSQL a session advisory lock
 * makes concurrent starts of several instances apply them once.
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { Database } from './client.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));
const MIGRATION_LOCK_ID = 724_113_001;

/** Brings the schema up to date. Throws when a migration fails (the failed one is rolled back). */
export async function migrate(database: Database): Promise<void> {
  if (database.kind === 'pglite' || database.url === undefined) {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
