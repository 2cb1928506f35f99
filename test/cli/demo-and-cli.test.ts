import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember } from '../helpers/factories.js';
import { makeGroup, makeLead } from '../helpers/records-factories.js';
import { seedDemo } from '../../src/bootstrap/demo-seed.js';
import { runCommand } from '../../src/cli/index.js';
import { ALL_PERMISSION_CODES } from '../../src/platform/permissions/catalog.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
  await seedDemo(t.database.db);
});
afterAll(async () => t.close());

async function loginAndMe(email: string, password: string, entityId: number) {
  const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password, entity_id: entityId } });
  expect(login.statusCode).toBe(200);
  return (await t.app.inject({ url: '/api/permissions/me', headers: bearer(login.json().access_token) })).json();
}

describe('demo data', () => {
  it('gives the demo admin every code in both entities', async () => {
    for (const entityId of [1, 2]) expect((await loginAndMe('admin@example.com', 'admin123', entityId)).permissions).toEqual([...ALL_PERMISSION_CODES].sort());
  });

  it('gives the demo seller exactly the seller role codes plus their implications', async () => {
    const me = await loginAndMe('seller@example.com', 'seller123', 1);
    expect(me.permissions).toEqual(['cartera.leads_list.view', 'contacts.view', 'groups.view', 'leads.create', 'leads.view']);
    expect(me.role).toMatchObject({ name: 'seller', source: 'employee' });
  });

  it('keeps the seller out of the second company', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'seller@example.com', password: 'seller123', entity_id: 2 } });
    expect(res.statusCode).toBe(403);
  });

  it('can be loaded twice without duplicating anything', async () => {
    await seedDemo(t.database.db);
    const { rows } = await t.database.executeSql('select count(*)::int as n from app_user', []);
    expect(rows[0]!.n).toBe(2);
  });
});

describe('operator CLI', () => {
  it('provisions an entity, a user, a membership, a role and a subscription that can log in', async () => {
    const db = t.database.db;
    expect(await runCommand(db, 'entity:create', ['--name', 'Acme', '--id', '30'])).toBe('entity 30: Acme');
    await runCommand(db, 'user:create', ['--email', 'Ana@Acme.com', '--name', 'Ana', '--password', 's3cret-pass']);
    await runCommand(db, 'employee:create', ['--email', 'ana@acme.com', '--entity', '30']);
    await runCommand(db, 'role:create', ['--name', 'clerk', '--entity', '30', '--permissions', 'groups.edit,leads.view']);
    await runCommand(db, 'subscription:create', ['--role', 'clerk', '--employee-email', 'ana@acme.com', '--entity', '30', '--deny', 'leads.view']);
    const me = await loginAndMe('ana@acme.com', 's3cret-pass', 30);
    expect(me.permissions).toEqual(['groups.edit', 'groups.view']);
  });

  it('refuses a password shorter than the API allows, and stores no user', async () => {
    const db = t.database.db;
    await expect(runCommand(db, 'user:create', ['--email', 'short@acme.com', '--name', 'Short', '--password', 'x'])).rejects.toThrow(
      /--password must have at least 8 characters/,
    );
    const { rows } = await t.database.executeSql("select count(*)::int as n from app_user where email = 'short@acme.com'", []);
    expect(rows[0]!.n).toBe(0);
  });

  it('rebuilds the stored sellers of an entity after assignments were written with SQL', async () => {
    const db = t.database.db;
    const entityId = (await makeEntity(db)).id;
    const seller = await makeMember(db, { entityId, name: 'Imported Seller' });
    const group = await makeGroup(db, entityId);
    const lead = await makeLead(db, { entityId, groupId: group.id });
    const other = await makeLead(db, { entityId });
    await t.database.executeSql('insert into group_assignment (entity_id, group_id, employee_id) values ($1, $2, $3)', [entityId, group.id, seller.employeeId]);
    await t.database.executeSql('insert into lead_assignment (entity_id, lead_id, employee_id) values ($1, $2, $3)', [entityId, other.id, seller.employeeId]);
    const stored = async () =>
      (await t.database.executeSql('select lead_id, via::text as via, effective from lead_seller where entity_id = $1 order by lead_id', [entityId])).rows;
    expect(await stored()).toEqual([]);
    expect(await runCommand(db, 'lead-sellers:rebuild', ['--entity', String(entityId)])).toBe(`entity ${entityId}: stored sellers rebuilt (2 rows)`);
    expect(await stored()).toEqual([
      { lead_id: lead.id, via: 'group', effective: true },
      { lead_id: other.id, via: 'lead', effective: true },
    ]);
  });

  it("rebuilds an entity's cartera rows after rows were written with the triggers disabled", async () => {
    const db = t.database.db;
    const entityId = (await makeEntity(db)).id;
    const lead = await makeLead(db, { entityId, name: 'Restored Lead' });
    const nameInCartera = async () => (await t.database.executeSql('select name from cartera_item where lead_id = $1', [lead.id])).rows[0]?.name;
    // A restore with triggers disabled writes the source tables only.
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update lead set name = 'Renamed While Restoring' where id = ${lead.id}`);
    });
    expect(await nameInCartera()).toBe('Restored Lead');
    expect(await runCommand(db, 'cartera:rebuild', ['--entity', String(entityId)])).toBe(`entity ${entityId}: cartera rows rebuilt (1 leads)`);
    expect(await nameInCartera()).toBe('Renamed While Restoring');
  });

  it('refuses unknown permission codes and unknown commands', async () => {
    await expect(runCommand(t.database.db, 'role:create', ['--name', 'x', '--entity', '1', '--permissions', 'leads.fly'])).rejects.toThrow(/leads\.fly/);
    await expect(runCommand(t.database.db, 'nope', [])).rejects.toThrow(/unknown command/);
  });
});
