/**
 * Every statement written by hand is checked against the migrated schema: this file finds every
 * `src/**\/*.sql.ts` (a new one is picked up without being named here), and PREPAREs each statement it
 * exports (`statement`, `shapedStatement` of src/db/statement.ts), in every shape it declares, so a renamed
 * column or table fails here rather than in a request. The PL/pgSQL functions and triggers (the cartera
 * read model's of migrations 0002 and 0003, the leads' list item of 0025), whose bodies PostgreSQL checks only when they run, are run once on
 * no rows inside a rolled-back transaction. Views (`pgView` in `*.table.ts`) are checked by migrating and
 * by the drift check (`npm run db:check-drift`).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { isStatement, shapedStatement, statement, textsOf, type ShapedStatement, type Statement } from '../../src/db/statement.js';
import { createQueue } from '../../src/platform/queue/queue.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** Every `*.sql.ts` under src/, relative to it. */
function sqlFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.sql.ts'))
    .sort();
}

/** An error's message with its cause's (Drizzle wraps the database's error as the cause). */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
}

interface Found {
  label: string;
  statement: Statement | ShapedStatement<unknown>;
}

/** The statements each file exports; a plain string export (SQL that escapes the check) is an error. */
async function statementsOf(files: string[]): Promise<{ found: Found[]; unchecked: string[] }> {
  const found: Found[] = [];
  const unchecked: string[] = [];
  for (const file of files) {
    const exports = (await import(pathToFileURL(join(SRC, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (isStatement(value)) found.push({ label: `${file} ${name}`, statement: value });
      else if (typeof value === 'string' && /\b(select|insert|update|delete|with)\b/i.test(value)) unchecked.push(`${file} ${name}`);
    }
  }
  return { found, unchecked };
}

/**
 * PREPAREs (and deallocates) every shape of every statement; returns one line per failure. One simple
 * query per shape, so both commands run on the same connection of a pool.
 */
async function prepareEach(database: Database, statements: Found[]): Promise<string[]> {
  const failures: string[] = [];
  for (const { label, statement: stmt } of statements) {
    for (const { shape, text } of textsOf(stmt)) {
      try {
        await database.executeSql(`prepare sql_statement_check as ${text}; deallocate sql_statement_check`);
      } catch (err) {
        failures.push(`${label}${shape === undefined ? '' : ` ${JSON.stringify(shape)}`}: ${messageOf(err)}`);
      }
    }
  }
  return failures;
}

/** Runs `work` in a transaction that is always rolled back; returns what it returned. */
async function rolledBack<T>(database: Database, work: (run: (text: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  const rollback = new Error('rollback');
  let result: T | undefined;
  await database.db
    .transaction(async (tx) => {
      result = await work((text) => tx.execute(sql.raw(text)));
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return result as T;
}

/**
 * Runs every statement-level trigger of the public schema once, on no rows (a write that matches
 * nothing still fires them), and every PL/pgSQL function that takes integers with an id that matches
 * nothing: PostgreSQL plans each statement of a PL/pgSQL body the first time it runs, so a missing
 * column fails here. Returns one line per failure; the transaction is rolled back.
 */
/** A value of each argument type the database code takes, to call it with. */
const ARGUMENT_VALUES: Record<string, string> = {
  integer: '-1',
  'integer[]': 'array[-1]::int[]',
  text: "''",
  'timestamp with time zone': "'-infinity'::timestamptz",
};

async function runDatabaseCode(database: Database): Promise<{ failures: string[]; ran: string[] }> {
  const { rows: triggers } = await database.executeSql(
    `select distinct event_object_table as table_name, event_manipulation as event from information_schema.triggers
      where trigger_schema = 'public' and action_orientation = 'STATEMENT' order by 1, 2`,
    [],
  );
  const { rows: functions } = await database.executeSql(
    `select p.proname as name, coalesce(array_to_string(array(select format_type(t, null) from unnest(p.proargtypes) t), ','), '') as args
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
      where n.nspname = 'public' and l.lanname = 'plpgsql' and p.prorettype <> 'trigger'::regtype order by 1`,
    [],
  );
  const failures: string[] = [];
  const ran: string[] = [];
  for (const t of triggers) {
    const table = String(t.table_name);
    const event = String(t.event);
    await rolledBack(database, async (run) => {
      // Generated columns (lead.list_item) take no value of their own: the insert names the others.
      const { rows } = (await run(
        `select column_name from information_schema.columns where table_schema = 'public' and table_name = '${table}' and is_generated = 'NEVER' order by ordinal_position`,
      )) as { rows: { column_name: string }[] };
      const columns = rows.map((r) => `"${r.column_name}"`).join(', ');
      const column = rows[0]!.column_name;
      const write =
        event === 'INSERT'
          ? `insert into "${table}" (${columns}) select ${columns} from "${table}" where false`
          : event === 'UPDATE'
            ? `update "${table}" set "${column}" = "${column}" where false`
            : `delete from "${table}" where false`;
      try {
        await run(write);
        ran.push(`${event} ${table}`);
      } catch (err) {
        failures.push(`triggers on ${event} ${table}: ${messageOf(err)}`);
      }
    });
  }
  for (const f of functions) {
    const args = String(f.args).split(',').filter(Boolean);
    const values = args.map((type) => ARGUMENT_VALUES[type]);
    if (values.some((v) => v === undefined)) {
      failures.push(`${String(f.name)}(${String(f.args)}): the check does not know how to call it; teach runDatabaseCode its argument types`);
      continue;
    }
    await rolledBack(database, async (run) => {
      try {
        await run(`select ${String(f.name)}(${values.join(', ')})`);
        ran.push(`${String(f.name)}(${String(f.args)})`);
      } catch (err) {
        failures.push(`${String(f.name)}(${String(f.args)}): ${messageOf(err)}`);
      }
    });
  }
  return { failures, ran };
}

describe('hand-written SQL against the migrated schema', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    // queue.sql.ts reads pg-boss's tables: pg-boss installs its schema when it starts.
    const queue = createQueue(t.database, fastify({ logger: false }).log, { runWorkers: false });
    await queue.schedules();
    await queue.stop();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('prepares every statement of every src/**/*.sql.ts in every shape', async () => {
    const files = sqlFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        'modules/cartera/cartera.sql.ts',
        'modules/records/lead.sql.ts',
        'modules/identity/principal.sql.ts',
        'platform/queue/queue.sql.ts',
      ]),
    );
    const { found, unchecked } = await statementsOf(files);
    expect(unchecked, 'SQL exported as a plain string escapes the check: declare it with statement()').toEqual([]);
    expect(found.map((f) => f.label)).toEqual(
      expect.arrayContaining(['modules/cartera/cartera.sql.ts CARTERA_PAGE', 'modules/records/lead-seller.sql.ts INSERT_LEAD_SELLERS']),
    );
    const shapes = found.reduce((n, f) => n + textsOf(f.statement).length, 0);
    expect(shapes).toBeGreaterThan(found.length);
    expect(await prepareEach(t.database, found)).toEqual([]);
    // Statement names are prepared-statement names: two statements must not share one.
    const names = found.map((f) => f.statement.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('fails a statement that names a missing column, and a shape that does', async () => {
    const missingColumn = statement('synthetic_missing_column', 'select l.id, l.no_such_column from lead l where l.entity_id = $1');
    const missingTable = statement('synthetic_missing_table', 'delete from no_such_table where id = $1');
    // Only one of its shapes is wrong: every shape is prepared, not just the first.
    const oneBadShape = shapedStatement('synthetic_shapes', {
      shapes: [false, true],
      build: (broken: boolean) =>
        sql`select ci.lead_id from cartera_item ci where ci.entity_id = ${sql.placeholder('entityId')}${broken ? sql` and ci.no_such_flag` : sql``}`,
    });
    const failures = await prepareEach(t.database, [
      { label: 'missing column', statement: missingColumn },
      { label: 'missing table', statement: missingTable },
      { label: 'one bad shape', statement: oneBadShape as ShapedStatement<unknown> },
    ]);
    expect(failures).toHaveLength(3);
    expect(failures[0]).toMatch(/^missing column: .*no_such_column/s);
    expect(failures[1]).toMatch(/^missing table: .*no_such_table/s);
    expect(failures[2]).toMatch(/^one bad shape true: .*no_such_flag/s);
  });

  it('runs the cartera read model triggers and functions on no rows without error', async () => {
    const { failures, ran } = await runDatabaseCode(t.database);
    expect(failures).toEqual([]);
    expect(ran).toEqual(
      expect.arrayContaining([
        'INSERT lead',
        'UPDATE lead',
        'DELETE contact',
        'UPDATE conversation',
        'cartera_item_refresh(integer[])',
        'lead_list_item(integer,integer,text,text,text,text,text,timestamp with time zone,timestamp with time zone)',
        'cartera_item_rebuild(integer)',
        'conversation_report_day_forget(integer,timestamp with time zone)',
      ]),
    );
  });

  it('fails a PL/pgSQL function whose body names a missing column', async () => {
    await t.database.executeSql(`create function synthetic_broken_refresh(ids integer[]) returns void language plpgsql as $$
      begin
        if cardinality(ids) > 0 then
          perform l.no_such_column from lead l where l.id = any (ids);
        end if;
      end $$`);
    try {
      const { failures } = await runDatabaseCode(t.database);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(/^synthetic_broken_refresh\(integer\[\]\): .*no_such_column/s);
    } finally {
      await t.database.executeSql('drop function synthetic_broken_refresh(integer[])');
    }
  });
});
