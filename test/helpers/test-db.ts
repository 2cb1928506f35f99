/**
 * One database per test file: an in-memory PGlite in the run's migrated state by default, or a
 * PostgreSQL database cloned from the migrated template when TEST_DATABASE_URL is set (see
 * global-setup.ts). Drop it with `close()`.
 *
 * A PGlite database given back with `close()` is restored to the migrated state and handed to the worker's
 * next file (files share their worker's modules, see vitest.config.ts): starting a PGlite from the dump
 * (unpacking the data directory, starting PostgreSQL) cost more than many files' own tests. A database
 * whose schema a file changed, or that cannot be restored, is closed instead, and the next file loads a fresh one.
 */
import { randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { seedPermissionCatalog } from '../../src/modules/permissions/permission.repository.js';
import { createDirectoryService } from '../../src/modules/identity/directory.service.js';
import { QUEUE_SCHEMA } from '../../src/db/migrate.js';
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
    const traced = options.traced ?? false;
    // Traced databases wrap their client for spans: never handed on. A file with modules of its own (the process
    // project) would keep its databases where no other file finds them.
    const keep = !traced && inject('keepDatabases') === true;
    const database = (keep && restoredDatabases.pop()) || (await openPglite(traced));
    let closed = false;
    return {
      database,
      url: undefined,
      async close() {
        if (closed) return;
        closed = true;
        if (keep && restoredDatabases.length < KEPT_DATABASES && (await restoreMigratedState(database))) restoredDatabases.push(database);
        else await database.close().catch(() => undefined);
      },
    };
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

/** At most this many restored PGlite databases wait for the worker's next files. */
const KEPT_DATABASES = 2;
const restoredDatabases: Database[] = [];

/** What a restore must bring back, read from the first database of the worker before any file used it. */
interface MigratedState {
  /** Tables, views, indexes, columns, functions and triggers of the service's schemas, as one text. */
  catalog: string;
  /** The tables a file may fill (the service's and the job queue's jobs and schedules), quoted, emptied by a restore. */
  tables: string[];
  /** Rows the migrated state holds (the permission catalogue, the system roles), as JSON per table. */
  rows: { table: string; json: string }[];
  /** Every sequence's position. */
  sequences: { name: string; lastValue: string | null }[];
}
let migratedState: MigratedState | undefined;

/** The job queue's tables of jobs and schedules, emptied between files; its version and queue definitions stay. */
const QUEUE_DATA_TABLES = ['job', 'archive', 'schedule', 'subscription'];

const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\\_temp%' and n.nspname not like 'pg\\_toast%'`;

/** A queue's partition of pg-boss's job table, and its indexes, are named `j` and the queue name's SHA-224. */
const NOT_QUEUE_PARTITION = `not (n.nspname = '${QUEUE_SCHEMA}' and c.relname ~ '^j[0-9a-f]{56}')`;

/** Tables, views, indexes, columns, functions and triggers of the database's own schemas, as one text. */
async function readCatalog(database: Database): Promise<string> {
  const { rows } = await database.executeSql(
    `select string_agg(item, ',' order by item) as catalog from (
       select format('%s.%s:%s', n.nspname, c.relname, c.relkind) from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMAS} and ${NOT_QUEUE_PARTITION}
       union all
       select format('%s.%s.%s:%s:%s', n.nspname, c.relname, a.attname, a.atttypid, a.attnotnull) from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
         where ${USER_SCHEMAS} and ${NOT_QUEUE_PARTITION} and a.attnum > 0 and not a.attisdropped
       union all
       select format('%s.%s:%s', n.nspname, p.proname, md5(p.prosrc)) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${USER_SCHEMAS}
       union all
       select format('%s:%s:%s', t.tgrelid::regclass, t.tgname, t.tgenabled) from pg_trigger t where not t.tgisinternal
     ) catalog(item)`,
  );
  return String(rows[0]!.catalog);
}

async function openPglite(traced: boolean): Promise<Database> {
  // Without the global setup's dump (a config that does not run it), migrate here.
  const dump = inject('pgliteDump');
  const database = await openDatabase({ dataDir: ':memory:', traced, ...(dump ? { loadDataDir: await openAsBlob(dump) } : {}) });
  if (!dump) await prepareDatabase(database);
  migratedState ??= await readMigratedState(database);
  return database;
}

async function readMigratedState(database: Database): Promise<MigratedState> {
  const tables = (
    await database.executeSql(
      `select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'public' or (schemaname = '${QUEUE_SCHEMA}' and tablename = any($1::text[]))`,
      [QUEUE_DATA_TABLES],
    )
  ).rows.map((r) => String(r.name));
  const rows: MigratedState['rows'] = [];
  for (const table of tables) {
    const json = (await database.executeSql(`select json_agg(t)::text as json from ${table} t`)).rows[0]!.json as string | null;
    if (json !== null) rows.push({ table, json });
  }
  const sequences = await database.executeSql(`select format('%I.%I', schemaname, sequencename) as name, last_value::text from pg_sequences`);
  return {
    catalog: await readCatalog(database),
    tables,
    rows,
    sequences: sequences.rows.map((r) => ({ name: String(r.name), lastValue: r.last_value as string | null })),
  };
}

/**
 * Brings a database a file used back to the migrated state: session state reset, every table emptied, and the
 * migrated rows and sequence positions restored. The job queue's definitions (pg-boss queues and their
 * partitions) stay, as they do when the service restarts on its database; the next app brings each to its
 * own options. False when that cannot be done or the schema still differs (a file that changed it), so
 * the caller closes the database.
 */
async function restoreMigratedState(database: Database): Promise<boolean> {
  const state = migratedState;
  if (!state) return false;
  try {
    await database.executeSql('discard all');
    if ((await readCatalog(database)) !== state.catalog) return false;
    // Rows as they were, without firing the service's triggers or checking references in between. Deleting
    // is cheaper here than truncating, which replaces every table's and index's files.
    await database.executeSql(`set session_replication_role = replica`);
    await database.executeSql(state.tables.map((table) => `delete from ${table};`).join('\n'));
    for (const { table, json } of state.rows)
      await database.executeSql(`insert into ${table} overriding system value select * from json_populate_recordset(null::${table}, $1::json)`, [json]);
    await database.executeSql(`reset session_replication_role`);
    await database.executeSql(
      `select setval(s.name::regclass, coalesce(s.last_value, q.start_value), s.last_value is not null)
         from unnest($1::text[], $2::bigint[]) s(name, last_value) join pg_sequences q on format('%I.%I', q.schemaname, q.sequencename) = s.name`,
      [state.sequences.map((q) => q.name), state.sequences.map((q) => q.lastValue)],
    );
    return true;
  } catch {
    return false;
  }
}

/** Empties every application table and restores the permission catalogue and system roles. */
export async function resetDatabase(database: Database): Promise<void> {
  const { rows } = await database.executeSql(
    `select string_agg(format('%I', tablename), ', ') as tables from pg_tables where schemaname = 'public' and tablename not like '\\_\\_%'`,
    [],
  );
  const tables = rows[0]?.tables as string | null;
  // Replica mode holds back the audit trail's append-only trigger (migration 0037), which refuses TRUNCATE.
  if (tables)
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql.raw(`truncate ${tables} restart identity cascade`));
    });
  await seedPermissionCatalog(database.db);
  await createDirectoryService(database.db).ensureSuperAdminRole();
}
