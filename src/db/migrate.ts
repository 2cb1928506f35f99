/**
 * Applies the committed drizzle-kit migrations in `migrations/` and installs or upgrades the job queue's
 * schema (pg-boss, schema `pgboss`). On PostgreSQL everything runs under the session advisory lock
 * `SCHEMA_LOCK_ID`, which the queue's definitions also take (queue.ts): instances started at the same
 * moment apply each change once, one after the other, and never interleave DDL (docs/operations.md
 * "Deploying").
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { sql } from 'drizzle-orm';
import type { Database, Db } from './client.js';

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));
/** The advisory lock key of schema changes: migrations and job queue definitions. */
export const SCHEMA_LOCK_ID = 724_113_001;
/** The schema of the job queue's tables (pg-boss). */
export const QUEUE_SCHEMA = 'pgboss';

/**
 * Takes `SCHEMA_LOCK_ID` for the rest of transaction `tx`: what every instance writes at start (the permission
 * catalogue, the system roles) is written by one at a time, never raced into a duplicate key.
 */
export async function holdSchemaLock(tx: Db): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${SCHEMA_LOCK_ID})`);
}

type SqlExecutor = { executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

/** Brings the schema up to date, the job queue's included. Throws when a migration fails (the failed one is rolled back). */
export async function migrate(database: Database): Promise<void> {
  if (database.kind === 'pglite' || database.url === undefined) {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER });
    await installQueueSchema(database);
    return;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [SCHEMA_LOCK_ID]);
    await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
    await installQueueSchema({ executeSql: async (text, values) => ({ rows: (await client.query<Record<string, unknown>>(text, values)).rows }) });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [SCHEMA_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

/** Installs pg-boss's schema, or migrates it to this pg-boss version; no timers, no workers. */
async function installQueueSchema(executor: SqlExecutor): Promise<void> {
  const boss = new PgBoss({ db: executor, schema: QUEUE_SCHEMA, supervise: false, schedule: false, migrate: true });
  await boss.start();
  await boss.stop({ graceful: false, wait: true, close: false });
}

/**
 * What is missing for the schema to be current: migrations not applied (by tag) and whether the job
 * queue's schema is installed. Both empty/true: the database is ready for this release.
 */
export async function schemaStatus(database: Database): Promise<{ pendingMigrations: string[]; queueInstalled: boolean }> {
  const files = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const { rows } = await database
    .executeSql(
      `select (select max(created_at)::text from drizzle.__drizzle_migrations) as last,
            to_regclass('${QUEUE_SCHEMA}.version') is not null as queue`,
    )
    .catch(async (err: unknown) => {
      // No drizzle schema yet: nothing was ever migrated.
      if ((err as { code?: string }).code !== '42P01' && (err as { code?: string }).code !== '3F000') throw err;
      return database.executeSql(`select null as last, to_regclass('${QUEUE_SCHEMA}.version') is not null as queue`);
    });
  const last = rows[0]?.last == null ? 0 : Number(rows[0].last);
  const tags = readJournalTags();
  const pendingMigrations = files.flatMap((f, i) => (f.folderMillis > last ? [tags[i] ?? String(f.folderMillis)] : []));
  return { pendingMigrations, queueInstalled: rows[0]?.queue === true };
}

/** The migrations' names, in the journal's order (the one `readMigrationFiles` follows). */
function readJournalTags(): string[] {
  const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.map((e) => e.tag);
}

/**
 * Waits until the schema is current (another step or instance is migrating it), polling every second for
 * up to `waitSeconds`; throws an error naming what is missing and how to apply it otherwise.
 */
export async function waitForCurrentSchema(database: Database, waitSeconds: number, onWait?: (missing: string) => void): Promise<void> {
  const deadline = Date.now() + waitSeconds * 1000;
  let told = false;
  for (;;) {
    const status = await schemaStatus(database);
    if (status.pendingMigrations.length === 0 && status.queueInstalled) return;
    const missing = [
      ...(status.pendingMigrations.length > 0
        ? [
            `${status.pendingMigrations.length} migration(s) not applied (${status.pendingMigrations.slice(0, 3).join(', ')}${status.pendingMigrations.length > 3 ? ', …' : ''})`,
          ]
        : []),
      ...(status.queueInstalled ? [] : ['the job queue schema is not installed']),
    ].join('; ');
    if (Date.now() >= deadline) {
      throw new Error(
        `The database schema is not current: ${missing}. Run \`npm run migrate\` (or \`node dist/cli/migrate.js\`) for this release, or set DATABASE_MIGRATE_ON_START=true.`,
      );
    }
    if (!told) onWait?.(missing);
    told = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
