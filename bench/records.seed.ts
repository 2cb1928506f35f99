/**
 * The records benchmark's data: `leads` leads plus `leads / 10` clients in `leads / 10` groups, one contact
 * each, a seller assigned to half the groups and a tenth of the leads, written with set-based SQL straight
 * into the database the service will open (not through the API: 100k POSTs would take minutes), and
 * grown in place to a larger size (`growRecords`) to show that the lists do not grow with the table.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client.js';
import { createDirectoryService } from '../src/modules/identity/index.js';
import { rebuildLeadSellers } from '../src/modules/records/index.js';
import { rebuildCarteraItems } from '../src/modules/cartera/index.js';
import { signBenchToken } from './lib.js';

export interface RecordsSeed {
  /** A token of the seeded member (signed with `BENCH_SECRETS`), valid for the service's token lifetime. */
  token: string;
  /** The member's user (the token's). */
  userId: number;
  entityId: number;
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
  const role = await dir.ensureRole({
    entityId: entity.id,
    name: 'bench',
    permissions: ['leads.view', 'cartera.leads_list.view', 'cartera.export_excel', 'custom_field_types.view'],
  });
  await dir.subscribe({ employeeId: employee.id, entityId: entity.id, roleId: role.id });
  await growRecords(database, { entityId: entity.id, sellerId: employee.id }, 0, leads);
  const token = await signBenchToken(database, user.id, entity.id);
  return { token, userId: user.id, entityId: entity.id, sellerId: employee.id, seedSeconds: (performance.now() - started) / 1000 };
}

/**
 * Grows the seeded entity from `from` to `to` leads (both multiples of 10), in the same proportions: a
 * group and a client per ten leads, one contact per record, the seller on every second new group and every
 * tenth new record. Set-based SQL (`generate_series`), one statement per table, then the stored sellers
 * and the cartera read model derived once, and the tables vacuumed and analyzed. Returns the seconds taken.
 */
export async function growRecords(database: Database, seed: { entityId: number; sellerId: number }, from: number, to: number): Promise<number> {
  const started = performance.now();
  const db = database.db;
  const e = seed.entityId;
  const [g0, g1] = [Math.ceil(from / 10), Math.ceil(to / 10)];
  const maxId = async (table: 'crm_group' | 'lead') => {
    const { rows } = await database.executeSql(`select coalesce(max(id), 0) as n from ${table} where entity_id = $1`, [e]);
    return Number(rows[0]!.n);
  };
  const [groupsBefore, leadsBefore] = [await maxId('crm_group'), await maxId('lead')];
  // One transaction with triggers off (as a restore runs, `session_replication_role = replica`: no
  // read-model refresh per statement, no foreign-key checks of rows generated consistent), then the read
  // model derived once for the whole entity (`rebuildCarteraItems`, whose inserts run the seller side's
  // triggers): a million leads in minutes, not hours, on a shared machine.
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(
      sql`insert into crm_group (entity_id, name, created_at) select ${e}, 'Group ' || g, now() - (g || ' minutes')::interval from generate_series(${g0 + 1}::int, ${g1}::int) g`,
    );
    // Group ids are consecutive (one statement, no concurrent writer): the first new group is `first`.
    const first = sql`(select min(id) from crm_group where entity_id = ${e} and id > ${groupsBefore})`;
    // Ten leads (no erp_id) per new group, then one client per new group.
    await tx.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
      select ${e}, ${first} + (i - ${from} - 1) / 10, 'Lead ' || i, null, now() - (i || ' seconds')::interval
      from generate_series(${from + 1}::int, ${to}::int) i`);
    await tx.execute(sql`insert into lead (entity_id, group_id, name, erp_id, created_at)
      select ${e}, ${first} + (i - ${g0} - 1), 'Client ' || i, 'ERP-' || i, now() - (i || ' seconds')::interval
      from generate_series(${g0 + 1}::int, ${g1}::int) i`);
    await tx.execute(
      sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where entity_id = ${e} and id > ${leadsBefore}`,
    );
    await tx.execute(
      sql`insert into group_assignment (entity_id, group_id, employee_id) select ${e}, id, ${seed.sellerId} from crm_group where entity_id = ${e} and id > ${groupsBefore} and id % 2 = 0`,
    );
    await tx.execute(
      sql`insert into lead_assignment (entity_id, lead_id, employee_id) select ${e}, id, ${seed.sellerId} from lead where entity_id = ${e} and id > ${leadsBefore} and id % 10 = 0`,
    );
    // The assignments were written in bulk, around the records repository: derive the stored sellers once.
    await rebuildLeadSellers(tx, e);
  });
  // Statistics first, so the rebuild plans its joins for the real sizes.
  await db.execute(sql`analyze`);
  await rebuildCarteraItems(db, e);
  // The read model's rows were just written (and rewritten where they existed); production leaves
  // vacuuming to autovacuum, which the benchmark machine's PostgreSQL may have turned off. Measure the
  // steady state.
  await db.execute(sql`vacuum analyze`);
  return (performance.now() - started) / 1000;
}
