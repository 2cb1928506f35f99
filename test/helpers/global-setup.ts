/**
 * Migrates one database per run and lets every test file start from it, which is much faster than
 * migrating per file and keeps files isolated:
 * - with TEST_DATABASE_URL, a template database that each file clones (CREATE DATABASE ... TEMPLATE);
 * - without it, a PGlite data directory dump (`dumpDataDir`) that each file's in-memory PGlite loads
 *   (`loadDataDir`), which also skips PGlite's initdb, the larger part of a fresh PGlite's start.
 * The `integration` and `process` projects both name this file; vitest runs it once per project, so the
 * prepared state is shared through `globalThis` (one main process) and removed after the last project.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/client.js';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { withDatabaseName } from './pg-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL: the migrated template database's name. */
    templateDatabase: string | null;
    /** PGlite: path of the migrated data directory dump (an uncompressed tarball). */
    pgliteDump: string | null;
    /** False in the `unit` project: a test there that opens a database is misfiled. */
    databaseAllowed: boolean;
    /** True where files share their worker's modules (`integration`): a PGlite database closed by a file is restored for the next. */
    keepDatabases: boolean;
  }
}

interface Prepared {
  templateDatabase: string | null;
  pgliteDump: string | null;
  dispose(): Promise<void>;
}

const shared = globalThis as { crmTestDatabaseSetup?: { users: number; prepared: Promise<Prepared> } };

async function prepare(): Promise<Prepared> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const dir = mkdtempSync(join(tmpdir(), 'crm-test-pglite-'));
    const database = await openDatabase({ dataDir: ':memory:' });
    try {
      await prepareDatabase(database);
      const dump = await database.dumpDataDir!();
      writeFileSync(join(dir, 'pgdata.tar'), Buffer.from(await dump.arrayBuffer()));
    } finally {
      await database.close();
    }
    return { templateDatabase: null, pgliteDump: join(dir, 'pgdata.tar'), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const template = `crm_template_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const database = await openDatabase({ url: withDatabaseName(url, template), poolSize: 2 });
  try {
    await prepareDatabase(database);
    await defineQueues(database);
  } finally {
    await database.close();
  }
  return {
    templateDatabase: template,
    pgliteDump: null,
    async dispose() {
      await admin.query(`drop database if exists ${template} with (force)`);
      await admin.end();
    },
  };
}

/**
 * Builds the app once on the PostgreSQL template, so that the queues every app defines as it starts exist in
 * each clone: pg-boss creates a queue with its own tables (about 25 ms of DDL each on PostgreSQL, over a
 * second for the app's queues), which every test file's first app would otherwise pay again. Embedded
 * databases skip it: there the same work costs a few milliseconds.
 */
async function defineQueues(database: Database): Promise<void> {
  const [{ buildApp }, { loadConfig }] = await Promise.all([import('../../src/app.js'), import('../../src/config.js')]);
  // Not test-app.ts's `testConfig`: it loads vitest's runner API, which a global setup may not import. Any
  // secrets do: the app only starts and stops.
  const jwtSecret = 'template-secret-template-secret-0123456789';
  const erpSessionEncryptionKey = '0'.repeat(64);
  const app = await buildApp({
    config: loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: ':memory:',
      JWT_SECRET: jwtSecret,
      ERP_SESSION_ENCRYPTION_KEY: erpSessionEncryptionKey,
    }),
    database,
    secrets: { jwtSecret, erpSessionEncryptionKey, generated: [] },
    startQueue: false,
  });
  await app.ready();
  await app.close();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.crmTestDatabaseSetup ??= { users: 0, prepared: prepare() };
  const state = shared.crmTestDatabaseSetup;
  state.users++;
  const prepared = await state.prepared;
  project.provide('templateDatabase', prepared.templateDatabase);
  project.provide('pgliteDump', prepared.pgliteDump);
  return async () => {
    if (--state.users > 0) return;
    shared.crmTestDatabaseSetup = undefined;
    await prepared.dispose();
  };
}
