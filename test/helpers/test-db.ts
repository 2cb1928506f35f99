/**
 * One database per test file: an in-memory PGlite loaded from the run's migrated dump by default, or a
 * PostgreSQL database cloned from the migrated template when TEST_DATABASE_URL is set (see
 * global-setup.ts). Drop it with `close()`.
 */
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { seedPermissionCatalog } from '../../src/modules/permissions/permission.repository.js';
import { createDirectoryService } from '../../src/modules/identity/directory.service.js';
import { withDatabaseName } from './pg-url.js';

export interface TestDatabase {
  database: Database;
  /** PostgreSQL URL of this file's database (undefined on PGlite). */
  url: string | undefined;
  close(): Promise<void>;
}

/** `traced` makes every statement an OpenTelemetry span (tracing tests). */
export async function createTestDatabase(options: { traced?: boolean } = {}): Promise<TestDatabase> {
  if (inject('databaseAllowed') === false) throw new Error('this file opens a database: list it in the integration project, not unit (vitest.config.ts)');
  const baseUrl = process.env.TEST_DATABASE_URL;
  const template = inject('templateDatabase');
  if (!baseUrl || !template) {
    // Without the global setup's dump (a config that does not run it), migrate here as before.
    const dump = inject('pgliteDump');
    const database = await openDatabase({ dataDir: ':memory:', traced: options.traced ?? false, ...(dump ? { loadDataDir: await openAsBlob(dump) } : {}) });
    if (!dump) await prepareDatabase(database);
    return { database, url: undefined, close: () => database.close() };
  }
  const name = `crm_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${template}`);
  await admin.end();
  const url = withDatabaseName(baseUrl, name);
  const database = await openDatabase({ url, poolSize: 10, traced: options.traced ?? false });
  return {
    database,
    url,
    async close() {
      await database.close();
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      // pg Pool.end() resolves before its clients finish closing; a forced drop at that moment kills them
      // mid-goodbye and they raise an uncaught 57P01. Wait for them to leave, forcing only as a last resort.
      for (let attempt = 0; attempt < 40; attempt++) {
        const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
        if (rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** Empties every application table and restores the permission catalogue and system roles. */
export async function resetDatabase(database: Database): Promise<void> {
  const { rows } = await database.executeSql(
    `select string_agg(format('%I', tablename), ', ') as tables from pg_tables where schemaname = 'public' and tablename not like '\\_\\_%'`,
    [],
  );
  const tables = rows[0]?.tables as string | null;
  if (tables) await database.executeSql(`truncate ${tables} restart identity cascade`);
  await seedPermissionCatalog(database.db);
  await createDirectoryService(database.db).ensureSuperAdminRole();
}
