import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { assignGroup, assignLead, makeGroup, makeLead } from '../../helpers/records-factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { queryRows } from '../../../src/db/client.js';
import { recordQueries } from '../../helpers/query-counter.js';

/**
 * The cartera lists read a read model the database keeps through triggers; these tests change its
 * sources through every kind of write (API, the webhook's creation of new senders, plain SQL) and read the
 * lists back.
 */
let t: TestContext;
let entityA: number;
let token: string;
let seller: Member;
let other: Member;

const CODES = [
  'cartera.leads_list.view',
  'cartera.clients_list.view',
  'groups.edit',
  'leads.edit',
  'contacts.create',
  'contacts.edit',
  'lead_assignments.manage',
];

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  entityA = (await makeEntity(db)).id;
  token = await tokenFor(t.app, await makeMember(db, { entityId: entityA, codes: CODES }));
  seller = await makeMember(db, { entityId: entityA, name: 'Sara Seller' });
  other = await makeMember(db, { entityId: entityA, name: 'Otto Other' });
});
afterAll(async () => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
type Item = Record<string, unknown> & { id: number };
async function itemOf(kind: 'leads' | 'clients', id: number): Promise<Item | undefined> {
  const res = await call('GET', `/cartera/${kind}?limit=200`);
  expect(res.statusCode).toBe(200);
  return (res.json().data as Item[]).find((i) => i.id === id);
}

describe('cartera read model', () => {
  it('follows renames, moves, new contacts and conversions made through the API', async () => {
    const group = await makeGroup(t.database.db, entityA, 'Old Name');
    const target = await makeGroup(t.database.db, entityA, 'Target Group');
    await assignGroup(t.database.db, entityA, other.employeeId, target.id);
    const lead = await makeLead(t.database.db, { entityId: entityA, groupId: group.id, name: 'Moving Lead' });
    expect(await itemOf('leads', lead.id)).toMatchObject({ group: 'Old Name', lead: 'Moving Lead', contact: null, seller: null, interaction: null });

    expect((await call('PATCH', `/groups/${group.id}`, { name: 'New Name' })).statusCode).toBe(200);
    expect(await itemOf('leads', lead.id)).toMatchObject({ group: 'New Name', groupId: group.id });

    const contact = (await call('POST', '/contacts', { lead_id: lead.id, name: 'First Person' })).json();
    expect(await itemOf('leads', lead.id)).toMatchObject({ contact: { id: contact.id, name: 'First Person' } });
    expect((await call('PATCH', `/contacts/${contact.id}`, { name: 'Renamed Person' })).statusCode).toBe(200);
    expect(await itemOf('leads', lead.id)).toMatchObject({ contact: { id: contact.id, name: 'Renamed Person' } });

    expect((await call('PATCH', `/leads/${lead.id}`, { group_id: target.id, name: 'Moved Lead' })).statusCode).toBe(200);
    expect(await itemOf('leads', lead.id)).toMatchObject({
      group: 'Target Group',
      groupId: target.id,
      lead: 'Moved Lead',
      seller: { id: other.employeeId, name: 'Otto Other', source: 'group' },
    });

    // A contact moved to another lead leaves its old lead without a contact.
    const second = await makeLead(t.database.db, { entityId: entityA, groupId: target.id, name: 'Second Lead' });
    expect((await call('PATCH', `/contacts/${contact.id}`, { lead_id: second.id })).statusCode).toBe(200);
    expect(await itemOf('leads', lead.id)).toMatchObject({ contact: null });
    expect(await itemOf('leads', second.id)).toMatchObject({ contact: { id: contact.id } });

    expect((await call('PATCH', `/leads/${lead.id}`, { erp_id: 'ERP-RM-1' })).statusCode).toBe(200);
    expect(await itemOf('leads', lead.id)).toBeUndefined();
    expect(await itemOf('clients', lead.id)).toMatchObject({ client: 'Moved Lead', erpId: 'ERP-RM-1' });
  });

  it("follows a seller's new name and assignments, and lists the lead without sellers as unassigned again", async () => {
    const group = await makeGroup(t.database.db, entityA);
    const lead = await makeLead(t.database.db, { entityId: entityA, groupId: group.id, name: 'Seller Lead' });
    const assigned = await call('POST', '/lead-assignments', { lead_id: lead.id, employee_id: seller.employeeId });
    expect(assigned.statusCode).toBe(201);
    expect(await itemOf('leads', lead.id)).toMatchObject({ seller: { id: seller.employeeId, name: 'Sara Seller', source: 'lead' } });

    // Employees are renamed by the ERP membership sync, which writes the table directly.
    await t.database.db.execute(sql`update employee set name = 'Sara Renamed' where id = ${seller.employeeId}`);
    expect(await itemOf('leads', lead.id)).toMatchObject({
      seller: { name: 'Sara Renamed' },
      sellers: { direct: [{ id: seller.employeeId, name: 'Sara Renamed' }] },
    });
    await t.database.db.execute(sql`update employee set name = 'Sara Seller' where id = ${seller.employeeId}`);

    expect((await call('DELETE', `/lead-assignments/${assigned.json().id}`)).statusCode).toBeLessThan(300);
    expect(await itemOf('leads', lead.id)).toMatchObject({ seller: null, sellers: { direct: [], inherited: [] } });
    const unassigned = (await call('GET', '/cartera/leads?unassigned=true&limit=200')).json().data as Item[];
    expect(unassigned.map((i) => i.id)).toContain(lead.id);
  });

  it('lists leads written with plain SQL, around the service, with their group and contact', async () => {
    const group = await makeGroup(t.database.db, entityA, 'Bulk Group');
    await t.database.db.execute(sql`insert into lead (entity_id, group_id, name) select ${entityA}, ${group.id}, 'Bulk ' || i from generate_series(1, 3) i`);
    await t.database.db.execute(
      sql`insert into contact (entity_id, group_id, lead_id, name) select entity_id, group_id, id, 'Contact of ' || name from lead where group_id = ${group.id}`,
    );
    const res = await call('GET', `/cartera/leads?group_id=${group.id}&sort=name`);
    expect(res.json().data.map((i: Item) => [i.lead, i.group, (i.contact as { name: string }).name])).toEqual([
      ['Bulk 1', 'Bulk Group', 'Contact of Bulk 1'],
      ['Bulk 2', 'Bulk Group', 'Contact of Bulk 2'],
      ['Bulk 3', 'Bulk Group', 'Contact of Bulk 3'],
    ]);
    expect(res.json().pagination).toEqual({ limit: 50, offset: 0, total: 3, total_capped: false });
  });

  it('stays exact when writes to the same lead and group run concurrently', async () => {
    const group = await makeGroup(t.database.db, entityA);
    const lead = await makeLead(t.database.db, { entityId: entityA, groupId: group.id, name: 'Busy Lead' });
    const writes = [
      ...Array.from({ length: 8 }, (_, i) => call('POST', '/contacts', { lead_id: lead.id, name: `Person ${i}` })),
      call('PATCH', `/groups/${group.id}`, { name: 'Busy Group' }),
      call('POST', '/lead-assignments', { lead_id: lead.id, employee_id: other.employeeId }),
    ];
    expect((await Promise.all(writes)).map((r) => r.statusCode).every((s) => s < 300)).toBe(true);
    const [latest] = await queryRows<{ id: number; name: string }>(
      t.database.db,
      sql`select id, name from contact where lead_id = ${lead.id} order by created_at desc, id desc limit 1`,
    );
    expect(await itemOf('leads', lead.id)).toMatchObject({
      group: 'Busy Group',
      contact: { id: latest!.id, name: latest!.name },
      seller: { id: other.employeeId },
    });
  });

  it("shows the lead's conversation with the latest message as its interaction", async () => {
    const account = await makeChannelAccount(t.database.db, { entityId: entityA, externalAccountId: '990011223344' });
    const send = async (from: string, id: string, timestamp: number) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/interactions/webhooks/communications',
        payload: whatsAppMessage({ phoneNumberId: account.externalAccountId }, { from, id, timestamp, name: 'Nueva Clienta' }),
      });
      expect(res.statusCode).toBe(200);
      await t.app.interactionsWorker.idle();
    };
    await send('50255501234', 'wamid.RM.1', 1_790_000_000);
    const search = async () => (await call('GET', '/cartera/leads?search=Nueva%20Clienta')).json().data as Item[];
    const [created] = await search();
    expect(created).toMatchObject({
      lead: 'Nueva Clienta',
      contact: { name: 'Nueva Clienta' },
      interaction: { channelTypeCode: 'chatapp_api', lastMessageAt: new Date(1_790_000_000_000).toISOString() },
    });
    const conversationId = (created!.interaction as { conversationId: number }).conversationId;
    expect((await call('GET', `/interactions/conversations/${conversationId}`)).statusCode).toBe(200);

    await send('50255501234', 'wamid.RM.2', 1_790_000_600);
    expect((await search())[0]).toMatchObject({ interaction: { conversationId, lastMessageAt: new Date(1_790_000_600_000).toISOString() } });
    // A late, older message does not move the interaction back.
    await send('50255501234', 'wamid.RM.0', 1_789_999_000);
    expect((await search())[0]).toMatchObject({ interaction: { conversationId, lastMessageAt: new Date(1_790_000_600_000).toISOString() } });
  });

  it("does not count a seller's portfolio again once it reached its cap, and counts again when a short page shows leads left it", async () => {
    const db = t.database.db;
    const entity = (await makeEntity(db)).id;
    const own = await tokenFor(t.app, await makeMember(db, { entityId: entity, codes: CODES }));
    const sara = await makeMember(db, { entityId: entity, name: 'Sara' });
    const group = await makeGroup(db, entity, 'Big Group');
    await db.execute(sql`insert into lead (entity_id, group_id, name) select ${entity}, ${group.id}, 'Bulk ' || i from generate_series(1, 1001) i`);
    await assignGroup(db, entity, sara.employeeId, group.id);
    const listed = async (url: string) => {
      const recorder = recordQueries();
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(own) });
      recorder.stop();
      const page = recorder.statements.filter((s) => s.includes('from cartera_seller_item s'));
      return { body: res.json(), counted: page.some((s) => /count\(\*\)::int from \(select 1 from cartera_seller_item/.test(s)) };
    };
    const first = await listed(`/cartera/leads?seller_id=${sara.employeeId}&limit=10`);
    expect(first).toMatchObject({ counted: true, body: { pagination: { limit: 10, offset: 0, total: 1000, total_capped: true } } });
    const again = await listed(`/cartera/leads?seller_id=${sara.employeeId}&limit=10&offset=10`);
    expect(again.counted).toBe(false);
    expect(again.body.data).toHaveLength(10);
    expect(again.body.pagination).toEqual({ limit: 10, offset: 10, total: 1000, total_capped: true });
    // Leads leave the portfolio: its first short page is counted again, exactly.
    await db.execute(sql`delete from lead where entity_id = ${entity} and name <> 'Bulk 7'`);
    const after = await listed(`/cartera/leads?seller_id=${sara.employeeId}&limit=10`);
    expect(after.counted).toBe(true);
    expect(after.body.data.map((i: Item) => i.lead)).toEqual(['Bulk 7']);
    expect(after.body.pagination).toEqual({ limit: 10, offset: 0, total: 1, total_capped: false });
  });

  it("lists a seller's portfolio from the seller's own entries, the same leads as the derivation, as assignments change", async () => {
    // An entity of its own: the lists below are compared whole.
    const db = t.database.db;
    const entity = (await makeEntity(db)).id;
    const own = await tokenFor(t.app, await makeMember(db, { entityId: entity, codes: [...CODES, 'group_assignments.manage'] }));
    const [sara, otto] = [await makeMember(db, { entityId: entity, name: 'Sara' }), await makeMember(db, { entityId: entity, name: 'Otto' })];
    const get = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(own) });
      expect(res.statusCode).toBe(200);
      const body: { data: Item[]; pagination: { total: number } } = res.json();
      return body;
    };
    const g1 = await makeGroup(db, entity, 'G1');
    const g2 = await makeGroup(db, entity, 'G2');
    const leads: { id: number }[] = [];
    for (const [i, groupId] of [g1.id, g1.id, g1.id, g2.id, g2.id].entries()) leads.push(await makeLead(db, { entityId: entity, groupId, name: `L${i}` }));
    await assignGroup(db, entity, sara.employeeId, g1.id);
    await assignGroup(db, entity, otto.employeeId, g2.id);
    // A direct assignment wins over the group's seller; two direct sellers are both effective.
    await assignLead(db, entity, otto.employeeId, leads[0]!.id);
    await assignLead(db, entity, sara.employeeId, leads[3]!.id);
    await assignLead(db, entity, otto.employeeId, leads[3]!.id);

    // The creation sorts read the seller's entries; the name sort probes the stored derivation: same leads.
    const portfolio = async (sellerId: number) => {
      const newest = await get(`/cartera/leads?seller_id=${sellerId}`);
      const oldest = await get(`/cartera/leads?seller_id=${sellerId}&sort=creation`);
      const byName = await get(`/cartera/leads?seller_id=${sellerId}&sort=name`);
      const ids = newest.data.map((i) => i.id);
      expect(oldest.data.map((i) => i.id)).toEqual([...ids].reverse());
      expect([...ids].sort((a, b) => a - b)).toEqual(byName.data.map((i) => i.id).sort((a, b) => a - b));
      expect(newest.pagination.total).toBe(ids.length);
      return ids.sort((a, b) => a - b);
    };
    const ids = (...ls: number[]) => ls.map((i) => leads[i]!.id);
    expect(await portfolio(sara.employeeId)).toEqual(ids(1, 2, 3));
    expect(await portfolio(otto.employeeId)).toEqual(ids(0, 3, 4));

    // Through the API: Sara takes group 2 too (lead 4 inherits both; lead 3 keeps its direct sellers).
    expect(
      (await t.app.inject({ method: 'POST', url: '/group-assignments', headers: bearer(own), payload: { group_ids: [g2.id], employee_id: sara.employeeId } }))
        .statusCode,
    ).toBeLessThan(300);
    expect(await portfolio(sara.employeeId)).toEqual(ids(1, 2, 3, 4));
    // A lead that becomes a client leaves the leads list and joins the clients list.
    expect((await t.app.inject({ method: 'PATCH', url: `/leads/${leads[1]!.id}`, headers: bearer(own), payload: { erp_id: 'ERP-SI-1' } })).statusCode).toBe(
      200,
    );
    expect(await portfolio(sara.employeeId)).toEqual(ids(2, 3, 4));
    expect((await get(`/cartera/clients?seller_id=${sara.employeeId}`)).data.map((i) => i.id)).toEqual(ids(1));
    // A deleted lead leaves every portfolio (its read-model rows go with it).
    await db.execute(sql`delete from contact where lead_id = ${leads[2]!.id}`);
    await db.execute(sql`delete from lead where id = ${leads[2]!.id}`);
    expect(await portfolio(sara.employeeId)).toEqual(ids(3, 4));
    // A seller of another entity sees nothing of this one.
    expect((await call('GET', `/cartera/leads?seller_id=${sara.employeeId}`)).json().data).toEqual([]);
  });
});
