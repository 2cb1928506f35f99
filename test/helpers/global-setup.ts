/**
 * With TEST_DATABASE_URL set, migrates one template database per run; every test file then clones it
 * (CREATE DATABASE ... TEMPLATE), which is much faster than migrating per file and keeps files isolated.
 * Without it, files use in-memory PGlite and nothing is prepared here.
 */
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { withDatabaseName } from './pg-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string | null;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('templateDatabase', null);
    return;
  }
  const template = `crm_template_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${template}`);
  const database = await openDatabase({ url: withDatabaseName(url, template), poolSize: 2 });
  await prepareDatabase(database);
  await database.close();
  project.provide('templateDatabase', template);
  return async () => {
    await admin.query(`drop database if exists ${template} with (force)`);
    await admin.end();
  };
}
