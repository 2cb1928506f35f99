/**
 * The records benchmark's data: `leads` leads plus `leads / 10` clients in `leads / 10` groups, one contact
 * each, a seller assigned to half the groups and a tenth of the leads, written with set-based SQL straight
 * into the database the service will open (not through the API: 100k POSTs would take minutes).
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client.js';
import { createDirectoryService, createIdentityService } from '../src/modules/identity/index.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { rebuildLeadSellers } from '../src/modules/records/index.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { createTokenService } from '../src/platform/auth/jwt.js';
import { BENCH_SECRETS } from './lib.js';

export interface RecordsSeed {
  /** A token of the seeded member (signed with `BENCH_SECRETS`), valid for the service's token lifetime. */
  token: string;
  /** The seller assigned to half the groups and a tenth of the leads. */
  sellerId: number;
  seedSeconds: number;
}

/** Seeds a new entity in `database` (migrated) and returns a token of its one member. */
export async function seedRecords(database: Database, leads: number): Promise<RecordsSeed> {
  const started = performance.now();
  const db = database.db;
  const dir = createDirectoryService(db);
  const entity = await dir.ensureEntity({ name: 'Bench Records' });
  const user = await dir.upsertUser({ email: `bench-records-${Date.now()}@example.com`, name: 'Bench', password: 'bench-password' });
  const employee = await dir.ensureEmployee({ userId: user.id, entityId: entity.id, name: 'Bench Seller' });
  const role = await dir.ensureRole({ entityId: entity.id, name: 'bench', permissions: ['leads.view', 'cartera.leads_list.view', 'cartera.export_excel', 'custom_field_types.view'] });
  await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id });
  const groups = Math.ceil(leads / 10);
  const e = entity.id;
  await db.execute(sql`insert into crm_group (entity_id, name, created_at) select ${e}, 'Group ' || g, now() - (g || ' minutes')::interval from generate_series(1, ${groups}) g`);
  // `leads` leads (no erp_id) plus leads/10 clients, ten records per group.
  await db.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
    select ${e}, (select min(id) from crm_group where entity_id = ${e}) + (i - 1) / 10, 'Lead ' || i, null, now() - (i || ' seconds')::interval
    from generate_series(1, ${leads}) i`);
  await db.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
    select ${e}, (select min(id) from crm_group where entity_id = ${e}) + (i - 1), 'Client ' || i, 'ERP-' || i, now() - (i || ' seconds')::interval
    from generate_series(1, ${groups}) i`);
  await db.execute(sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where entity_id = ${e}`);
  await db.execute(sql`insert into group_assignment (entity_id, group_id, employee_id) select ${e}, id, ${employee.id} from crm_group where entity_id = ${e} and id % 2 = 0`);
  await db.execute(sql`insert into lead_assignment (entity_id, lead_id, employee_id) select ${e}, id, ${employee.id} from lead where entity_id = ${e} and id % 10 = 0`);
  // The assignments were written in bulk, around the records repository: derive the stored sellers once.
  await rebuildLeadSellers(db, e);
  // The read model was rewritten by each bulk statement's trigger (two dead versions per row); production
  // leaves that to autovacuum, which the benchmark machine's PostgreSQL may have turned off. Measure the
  // steady state.
  await db.execute(sql`vacuum analyze`);
  const tokens = createTokenService(BENCH_SECRETS.jwtSecret);
  const principal = await createAuthenticator({ loadPrincipal: createIdentityService({ database }).loadPrincipal, tokens }).principalFor(user.id, entity.id, 'web');
  if (!principal) throw new Error('bench member has no principal');
  const token = (await tokens.sign(claimsFor(principal))).token;
  return { token, sellerId: employee.id, seedSeconds: (performance.now() - started) / 1000 };
}
