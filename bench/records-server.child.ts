/**
 * Child process of records.bench.ts: the service alone in its own process (as in production), so the
 * parent's load generator does not share its event loop. Starts the server on `DATABASE_URL` (the
 * parent's throw-away PostgreSQL database; embedded PGlite when unset), seeds `BENCH_RECORDS_LEADS`
 * leads (default 100k) with set-based SQL, prints one JSON line `RecordsService` when ready and stops on
 * SIGTERM.
 */
import { sql } from 'drizzle-orm';
import { startServer, type BenchServer } from './lib.js';
import { createDirectoryService } from '../src/modules/admin/directory.service.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { rebuildLeadSellers } from '../src/modules/records/lead-seller.repository.js';

export interface RecordsService {
  baseUrl: string;
  kind: BenchServer['kind'];
  token: string;
  /** The seller assigned to half the groups and a tenth of the leads. */
  sellerId: number;
  leads: number;
  seedSeconds: number;
}

const LEADS = Number(process.env.BENCH_RECORDS_LEADS ?? 100_000);

/** Bulk seed: groups, leads, clients, one contact per record, assignments on half the groups and a tenth of the leads. */
async function seed(server: BenchServer): Promise<{ token: string; sellerId: number }> {
  const db = server.database.db;
  const dir = createDirectoryService(db);
  const entity = await dir.ensureEntity({ name: 'Bench Records' });
  const user = await dir.upsertUser({ email: `bench-records-${Date.now()}@example.com`, name: 'Bench', password: 'bench-password' });
  const employee = await dir.ensureEmployee({ userId: user.id, entityId: entity.id, name: 'Bench Seller' });
  const role = await dir.ensureRole({ entityId: entity.id, name: 'bench', permissions: ['leads.view', 'cartera.leads_list.view', 'cartera.export_excel', 'custom_field_types.view'] });
  await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id });
  const groups = Math.ceil(LEADS / 10);
  const e = entity.id;
  await db.execute(sql`insert into crm_group (entity_id, name, created_at) select ${e}, 'Group ' || g, now() - (g || ' minutes')::interval from generate_series(1, ${groups}) g`);
  // LEADS leads (no erp_id) plus LEADS/10 clients, ten records per group.
  await db.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
    select ${e}, (select min(id) from crm_group where entity_id = ${e}) + (i - 1) / 10, 'Lead ' || i, null, now() - (i || ' seconds')::interval
    from generate_series(1, ${LEADS}) i`);
  await db.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
    select ${e}, (select min(id) from crm_group where entity_id = ${e}) + (i - 1), 'Client ' || i, 'ERP-' || i, now() - (i || ' seconds')::interval
    from generate_series(1, ${Math.ceil(LEADS / 10)}) i`);
  await db.execute(sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where entity_id = ${e}`);
  await db.execute(sql`insert into group_assignment (entity_id, group_id, employee_id) select ${e}, id, ${employee.id} from crm_group where entity_id = ${e} and id % 2 = 0`);
  await db.execute(sql`insert into lead_assignment (entity_id, lead_id, employee_id) select ${e}, id, ${employee.id} from lead where entity_id = ${e} and id % 10 = 0`);
  // The assignments were written in bulk, around the records repository: derive the stored sellers once.
  await rebuildLeadSellers(db, e);
  // The read model was rewritten by each bulk statement's trigger (two dead versions per row); production
  // leaves that to autovacuum, which the benchmark machine's PostgreSQL may have turned off. Measure the
  // steady state.
  await db.execute(sql`vacuum analyze`);
  const principal = await server.app.ctx.authenticator.principalFor(user.id, entity.id, 'web');
  if (!principal) throw new Error('bench member has no principal');
  const token = (await server.app.ctx.tokens.sign(claimsFor(principal))).token;
  return { token, sellerId: employee.id };
}

const server = await startServer({ DATABASE_URL: process.env.DATABASE_URL });
const started = performance.now();
const { token, sellerId } = await seed(server);
const ready: RecordsService = { baseUrl: server.baseUrl, kind: server.kind, token, sellerId, leads: LEADS, seedSeconds: (performance.now() - started) / 1000 };
process.stdout.write(JSON.stringify(ready) + '\n');

process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
