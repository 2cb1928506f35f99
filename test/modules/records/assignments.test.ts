import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeGroup, makeLead } from '../../helpers/records-factories.js';
import type { DomainEventMap } from '../../../src/platform/events/bus.js';

let t: TestContext;
let entityA: number;
let entityB: number;
let manager: Member;
let token: string;
let seller: Member;
let foreignSeller: Member;

beforeAll(async () => {
  t = await createTestApp();
  entityA = (await makeEntity(t.database.db)).id;
  entityB = (await makeEntity(t.database.db)).id;
  manager = await makeMember(t.database.db, {
    entityId: entityA,
    codes: ['group_assignments.manage', 'lead_assignments.manage', 'entity_channel_accounts.create', 'entity_channel_accounts.edit'],
  });
  token = await tokenFor(t.app, manager);
  seller = await makeMember(t.database.db, { entityId: entityA, name: 'Seller Uno' });
  foreignSeller = await makeMember(t.database.db, { entityId: entityB, name: 'Foreign Seller' });
});
afterAll(async () => t.close());

const req = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object, tk = token) =>
  t.app.inject({ method, url, headers: bearer(tk), ...(payload ? { payload } : {}) });

function collect<K extends 'lead.assigned' | 'lead.unassigned'>(name: K) {
  const events: DomainEventMap[K][] = [];
  const off = t.app.ctx.events.subscribe(name, (e) => void events.push(e));
  return { events, off };
}

describe('POST /group-assignments (the cartera mutation)', () => {
  it('assigns one seller to several groups, is idempotent, and publishes lead.assigned per lead of each new group', async () => {
    const g1 = await makeGroup(t.database.db, entityA);
    const g2 = await makeGroup(t.database.db, entityA);
    const l1 = await makeLead(t.database.db, { entityId: entityA, groupId: g1.id });
    const l2 = await makeLead(t.database.db, { entityId: entityA, groupId: g2.id });
    const assigned = collect('lead.assigned');
    const first = await req('POST', '/group-assignments', { employee_id: seller.employeeId, group_ids: [g1.id, g2.id] });
    expect(first.statusCode).toBe(200);
    expect(first.json().created).toBe(2);
    expect(first.json().data.map((a: { group_id: number }) => a.group_id)).toEqual([g1.id, g2.id]);
    const again = await req('POST', '/api/group-assignments', { employee_id: seller.employeeId, group_ids: [g1.id, g2.id] });
    assigned.off();
    expect(again.json()).toMatchObject({ created: 0 });
    expect(again.json().data.map((a: { id: number }) => a.id)).toEqual(first.json().data.map((a: { id: number }) => a.id));
    expect(assigned.events.map((e) => [e.leadId, e.via, e.employeeId]).sort()).toEqual(
      [
        [l1.id, 'group', seller.employeeId],
        [l2.id, 'group', seller.employeeId],
      ].sort(),
    );
  });

  it('is allowed with cartera.seller_assignment alone', async () => {
    const cartera = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA, codes: ['cartera.seller_assignment'] }));
    const g = await makeGroup(t.database.db, entityA);
    expect((await req('POST', '/group-assignments', { employee_id: seller.employeeId, group_ids: [g.id] }, cartera)).statusCode).toBe(200);
  });

  it("answers 400 naming another entity's group and writes nothing", async () => {
    const own = await makeGroup(t.database.db, entityA);
    const other = await makeGroup(t.database.db, entityB);
    const res = await req('POST', '/group-assignments', { employee_id: seller.employeeId, group_ids: [own.id, other.id] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body/group_ids/1' }] });
    expect((await req('GET', `/group-assignments?group_id=${own.id}`)).json().pagination.total).toBe(0);
  });

  it("answers 400 for another entity's employee and for an empty group list", async () => {
    const g = await makeGroup(t.database.db, entityA);
    expect((await req('POST', '/group-assignments', { employee_id: foreignSeller.employeeId, group_ids: [g.id] })).json().errors[0].field).toBe(
      '/body/employee_id',
    );
    expect((await req('POST', '/group-assignments', { employee_id: seller.employeeId, group_ids: [] })).statusCode).toBe(400);
  });

  it("deletes a group assignment with lead.unassigned events, and answers 404 for another entity's assignment", async () => {
    const g = await makeGroup(t.database.db, entityA);
    const l = await makeLead(t.database.db, { entityId: entityA, groupId: g.id });
    const id = (await req('POST', '/group-assignments', { employee_id: seller.employeeId, group_ids: [g.id] })).json().data[0].id;
    const un = collect('lead.unassigned');
    expect((await req('DELETE', `/group-assignments/${id}`)).statusCode).toBe(204);
    un.off();
    expect(un.events).toEqual([expect.objectContaining({ leadId: l.id, via: 'group', employeeId: seller.employeeId })]);
    expect((await req('DELETE', `/group-assignments/${id}`)).json()).toMatchObject({ code: 'not_found' });

    const og = await makeGroup(t.database.db, entityB);
    const other = await t.database.executeSql('insert into group_assignment (entity_id, group_id, employee_id) values ($1, $2, $3) returning id', [
      entityB,
      og.id,
      foreignSeller.employeeId,
    ]);
    expect((await req('DELETE', `/group-assignments/${String(other.rows[0]!.id)}`)).statusCode).toBe(404);
    const list = (await req('GET', '/group-assignments?limit=200')).json();
    expect(list.data.every((a: { group_id: number }) => a.group_id !== og.id)).toBe(true);
  });
});

describe('lead assignments', () => {
  it('assigns a seller to a lead (201, then 200 on repeat), lists it, and deletes it with events', async () => {
    const lead = await makeLead(t.database.db, { entityId: entityA });
    const assigned = collect('lead.assigned');
    const first = await req('POST', '/lead-assignments', { lead_id: lead.id, employee_id: seller.employeeId });
    const second = await req('POST', '/lead-assignments', { lead_id: lead.id, employee_id: seller.employeeId });
    assigned.off();
    expect([first.statusCode, second.statusCode]).toEqual([201, 200]);
    expect(second.json().id).toBe(first.json().id);
    expect(assigned.events).toEqual([
      expect.objectContaining({ leadId: lead.id, groupId: lead.groupId, via: 'lead', changedByEmployeeId: manager.employeeId }),
    ]);
    expect((await req('GET', `/lead-assignments?lead_id=${lead.id}`)).json().data).toEqual([
      expect.objectContaining({ id: first.json().id, employee_id: seller.employeeId }),
    ]);
    const other = await makeMember(t.database.db, { entityId: entityA, name: 'Group Vendor' });
    const g = (await req('POST', '/group-assignments', { employee_id: other.employeeId, group_ids: [lead.groupId] })).json().data[0];
    // GET /leads?employee_id= follows the derivation: the direct seller wins over the group's.
    expect((await req('GET', `/leads?employee_id=${seller.employeeId}&group_id=${lead.groupId}`)).json().data.map((l: { id: number }) => l.id)).toEqual([
      lead.id,
    ]);
    expect((await req('GET', `/leads?employee_id=${other.employeeId}&group_id=${lead.groupId}`)).json().data).toEqual([]);
    expect((await req('DELETE', `/group-assignments/${g.id}`)).statusCode).toBe(204);
    const un = collect('lead.unassigned');
    expect((await req('DELETE', `/lead-assignments/${first.json().id}`)).statusCode).toBe(204);
    un.off();
    expect(un.events).toEqual([expect.objectContaining({ leadId: lead.id, via: 'lead' })]);
  });

  it("answers 400 for another entity's lead and 404 when deleting another entity's assignment", async () => {
    const other = await makeLead(t.database.db, { entityId: entityB });
    expect((await req('POST', '/lead-assignments', { lead_id: other.id, employee_id: seller.employeeId })).json().errors[0].field).toBe('/body/lead_id');
    const row = await t.database.executeSql('insert into lead_assignment (entity_id, lead_id, employee_id) values ($1, $2, $3) returning id', [
      entityB,
      other.id,
      foreignSeller.employeeId,
    ]);
    expect((await req('DELETE', `/lead-assignments/${String(row.rows[0]!.id)}`)).json()).toMatchObject({ code: 'not_found' });
    expect((await req('GET', '/lead-assignments?limit=200')).json().data.every((a: { lead_id: number }) => a.lead_id !== other.id)).toBe(true);
  });
});

describe('employees and entity channel accounts', () => {
  it("lists the entity's active employees only", async () => {
    const res = (await req('GET', '/employees?search=Seller')).json();
    expect(res.data.map((e: { id: number }) => e.id)).toEqual([seller.employeeId]);
    const all = (await req('GET', '/employees?include_inactive=true')).json();
    expect(all.data.every((e: { id: number }) => e.id !== foreignSeller.employeeId)).toBe(true);
  });

  it('registers, lists, updates a channel account and refuses a duplicate platform id with 409', async () => {
    const created = await req('POST', '/entity-channel-accounts', {
      channel_type_code: 'chatapp_api',
      external_account_id: 'pn-1',
      display_name: 'Ventas',
      phone_number: '2222 0000',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ phone_number: '+50222220000', is_active: true });
    const id = created.json().id;
    expect((await req('PATCH', `/entity-channel-accounts/${id}`, { is_active: false })).json()).toMatchObject({ is_active: false });
    expect((await req('GET', '/entity-channel-accounts')).json().data.map((a: { id: number }) => a.id)).toContain(id);
    const dup = await req('POST', '/entity-channel-accounts', { channel_type_code: 'chatapp_api', external_account_id: 'pn-1', display_name: 'Again' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ code: 'already_exists' });
    expect((await req('POST', '/entity-channel-accounts', { channel_type_code: 'fax', external_account_id: 'x', display_name: 'x' })).statusCode).toBe(400);
  });

  it("answers 404 for another entity's channel account and excludes it from the list", async () => {
    const row = await t.database.executeSql(
      `insert into entity_channel_account (entity_id, channel_type_code, external_account_id, display_name) values ($1, 'social_dm', 'ig-foreign', 'F') returning id`,
      [entityB],
    );
    const id = String(row.rows[0]!.id);
    expect((await req('GET', `/entity-channel-accounts/${id}`)).json()).toMatchObject({ code: 'not_found' });
    expect((await req('PATCH', `/entity-channel-accounts/${id}`, { display_name: 'x' })).statusCode).toBe(404);
    expect((await req('GET', '/entity-channel-accounts')).json().data.every((a: { id: number }) => String(a.id) !== id)).toBe(true);
  });
});
