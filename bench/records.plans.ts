/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of the records benchmark's list statements on the seeded data, kept in
 * bench/plans/ so that a plan regression shows up in review. The statements are the ones the routes run:
 * the repositories are called with a runner that records each statement before running it, and each is
 * then explained as the service runs it: a named prepared statement with its cached generic plan
 * (`plan_cache_mode = force_generic_plan`), or planned for its values (`RunOptions.planEachCall`).
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client.js';
import type { PageReader } from '../src/db/paging.js';
import type { PreparedRunner } from '../src/db/prepared-sql.js';
import { selectCartera } from '../src/modules/cartera/cartera.repository.js';
import { listLeads } from '../src/modules/records/lead.repository.js';

export interface ExplainedStatement {
  /** File name stem: `leads-list`, `cartera-page`, `cartera-page-seller`. */
  name: string;
  title: string;
  text: string;
  plan: string;
}

interface Recorded {
  text: string;
  values: unknown[];
  generic: boolean;
}

/** A runner that runs statements on `database` and records them. */
function recording(database: Database, into: Recorded[]): PreparedRunner {
  return {
    async preparedQuery<T>(name: string, text: string, values: unknown[]) {
      into.push({ text, values, generic: true });
      return database.preparedQuery<T>(name, text, values);
    },
    async executeSql(text: string, values?: unknown[]) {
      into.push({ text, values: values ?? [], generic: false });
      return database.executeSql(text, values);
    },
  };
}

/** A value as an SQL literal for `EXECUTE` (the list statements take integers and text). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  throw new TypeError(`no literal for ${typeof v}`);
}

/**
 * Explains the first page of `GET /leads`, `GET /cartera/leads` and the seller-filtered portfolio of
 * `reader.entityId`, each with the principal of `reader.userId` read along, as the routes read them.
 */
export async function explainListStatements(database: Database, reader: PageReader, sellerId: number): Promise<ExplainedStatement[]> {
  const page = { limit: 50, offset: 0 };
  const lists: { name: string; title: string; call: (runner: PreparedRunner, counted: boolean) => Promise<unknown> }[] = [
    { name: 'leads-list', title: 'GET /leads?limit=50', call: (r, counted) => listLeads(r, reader, page, counted) },
    {
      name: 'cartera-page',
      title: 'GET /cartera/leads?limit=50',
      call: (r, counted) => selectCartera(r, reader, { kind: 'lead' }, { ...page, sort: '-creation' }, counted),
    },
    {
      name: 'cartera-page-seller',
      title: 'GET /cartera/leads?limit=50&seller_id=…',
      call: (r, counted) => selectCartera(r, reader, { kind: 'lead', sellerId }, { ...page, sort: '-creation' }, counted),
    },
  ];
  // Each page with its capped count (a list not known to reach its cap) and without (src/db/paging.ts).
  const cases = lists.flatMap((l) => [
    { name: l.name, title: `${l.title}, counted`, call: (r: PreparedRunner) => l.call(r, true) },
    { name: `${l.name}-over-cap`, title: `${l.title}, the list known to reach its cap`, call: (r: PreparedRunner) => l.call(r, false) },
  ]);
  const out: ExplainedStatement[] = [];
  for (const c of cases) {
    const recorded: Recorded[] = [];
    await c.call(recording(database, recorded));
    const { text, values, generic } = recorded[0]!;
    const plan = await database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local plan_cache_mode = ${generic ? 'force_generic_plan' : 'force_custom_plan'}`));
      await tx.execute(sql.raw(`prepare bench_explained as ${text}`));
      const res: unknown = await tx.execute(sql.raw(`explain (analyze, buffers) execute bench_explained(${values.map(literal).join(', ')})`));
      await tx.execute(sql.raw('deallocate bench_explained'));
      return (res as { rows: Record<string, string>[] }).rows.map((r) => Object.values(r)[0]).join('\n');
    });
    out.push({ name: c.name, title: `${c.title} (${generic ? 'named prepared statement, generic plan' : 'planned on each call for its values'})`, text, plan });
  }
  return out;
}
