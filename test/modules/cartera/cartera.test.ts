import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { sql } from 'drizzle-orm';
import { Errors } from 'typebox/value';
import { queryRows } from '../../../src/db/client.js';
import { CarteraClientList, CarteraLeadList } from '../../../src/modules/cartera/cartera.schemas.js';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { assignGroup, assignLead, makeContact, makeGroup, makeLead } from '../../helpers/records-factories.js';

let t: TestContext;
let entityA: number;
let entityB: number;
let token: string;
let sellerG: Member;
let sellerL: Member;
let group1: { id: number };
let group2: { id: number };
const leads: Record<string, { id: number; groupId: number }> = {};

const CODES = ['cartera.leads_list.view', 'cartera.clients_list.view', 'cartera.lead_detail.edit', 'cartera.client_detail.edit', 'cartera.export_excel'];

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  entityA = (await makeEntity(db)).id;
  entityB = (await makeEntity(db)).id;
  token = await tokenFor(t.app, await makeMember(db, { entityId: entityA, codes: CODES }));
  sellerG = await makeMember(db, { entityId: entityA, name: 'Gabriela Grupo' });
  sellerL = await makeMember(db, { entityId: entityA, name: 'Leonel Directo' });
  group1 = await makeGroup(db, entityA, 'Alfa Group');
  group2 = await makeGroup(db, entityA, 'Beta Group');
  await assignGroup(db, entityA, sellerG.employeeId, group1.id);
  leads.inherited = await makeLead(db, { entityId: entityA, groupId: group1.id, name: 'Inherited Lead' });
  leads.both = await makeLead(db, { entityId: entityA, groupId: group1.id, name: 'Both Lead' });
  await assignLead(db, entityA, sellerL.employeeId, leads.both.id);
  leads.direct = await makeLead(db, { entityId: entityA, groupId: group2.id, name: 'Direct Lead' });
  await assignLead(db, entityA, sellerL.employeeId, leads.direct.id);
  leads.none = await makeLead(db, { entityId: entityA, groupId: group2.id, name: 'Nobody Lead' });
  leads.client = await makeLead(db, { entityId: entityA, groupId: group1.id, name: 'Client One', erpId: 'ERP-1' });
  await makeContact(db, { entityId: entityA, leadId: leads.inherited.id, name: 'Older contact' });
  await makeContact(db, { entityId: entityA, leadId: leads.inherited.id, name: 'Newest contact' });
  leads.foreign = await makeLead(db, { entityId: entityB, name: 'Foreign Lead' });
  leads.foreignClient = await makeLead(db, { entityId: entityB, name: 'Foreign Client', erpId: 'ERP-1' });
});
afterAll(async () => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
type Item = {
  id: number;
  lead?: string;
  client?: string;
  seller: { id: number; source: string } | null;
  sellers: { direct: { id: number }[]; inherited: { id: number }[] };
};
const byId = (items: Item[]) => new Map(items.map((i) => [i.id, i]));

describe('GET /cartera/leads', () => {
  it('derives the seller: direct wins, inherited from the group otherwise, both sources listed', async () => {
    const res = await get('/cartera/leads?limit=50');
    expect(res.statusCode).toBe(200);
    const items = byId(res.json().data);
    expect(items.get(leads.inherited!.id)).toMatchObject({
      seller: { id: sellerG.employeeId, name: 'Gabriela Grupo', source: 'group' },
      sellers: { direct: [], inherited: [{ id: sellerG.employeeId }] },
    });
    expect(items.get(leads.both!.id)).toMatchObject({
      seller: { id: sellerL.employeeId, source: 'lead' },
      sellers: { direct: [{ id: sellerL.employeeId }], inherited: [{ id: sellerG.employeeId }] },
    });
    expect(items.get(leads.direct!.id)).toMatchObject({ seller: { id: sellerL.employeeId, source: 'lead' }, sellers: { inherited: [] } });
    expect(items.get(leads.none!.id)).toMatchObject({ seller: null, sellers: { direct: [], inherited: [] } });
  });

  it('returns the SPEC item fields, the latest contact and null for data the service does not hold', async () => {
    const item = (await get(`/cartera/leads?group_id=${group1.id}&search=Inherited`)).json().data[0];
    expect(Object.keys(item).sort()).toEqual(
      ['agenda', 'contact', 'creation', 'erpId', 'frequency', 'group', 'groupId', 'id', 'interaction', 'lastPurchase', 'lead', 'seller', 'sellers'].sort(),
    );
    expect(item).toMatchObject({
      groupId: group1.id,
      group: 'Alfa Group',
      lead: 'Inherited Lead',
      contact: { name: 'Newest contact' },
      lastPurchase: null,
      frequency: null,
      agenda: null,
      interaction: null,
    });
  });

  it('filters by effective seller in SQL: a direct assignment hides the group seller', async () => {
    const g = (await get(`/cartera/leads?seller_id=${sellerG.employeeId}`)).json();
    expect(g.data.map((i: Item) => i.id)).toEqual([leads.inherited!.id]);
    expect(g.pagination.total).toBe(1);
    const l = (await get(`/cartera/leads?seller_id=${sellerL.employeeId}&sort=name`)).json();
    expect(l.data.map((i: Item) => i.lead)).toEqual(['Both Lead', 'Direct Lead']);
    expect((await get('/cartera/leads?unassigned=true')).json().data.map((i: Item) => i.id)).toEqual([leads.none!.id]);
  });

  it('answers every sort in its order, and its pages follow on', async () => {
    const db = t.database.db;
    const entity = (await makeEntity(db)).id;
    const own = await tokenFor(t.app, await makeMember(db, { entityId: entity, codes: CODES }));
    const groups = { b: await makeGroup(db, entity, 'grupo b'), a: await makeGroup(db, entity, 'grupo a') };
    const made: { id: number; name: string; group: string }[] = [];
    for (const [name, group] of [
      ['delta', 'b'],
      ['alfa', 'a'],
      ['charlie', 'b'],
      ['bravo', 'a'],
      ['echo', 'b'],
    ] as const) {
      made.push({ id: (await makeLead(db, { entityId: entity, groupId: groups[group].id, name })).id, name, group: `grupo ${group}` });
    }
    const list = async (query: string) =>
      (await t.app.inject({ method: 'GET', url: `/cartera/leads?${query}`, headers: bearer(own) })).json<{ data: Item[] }>().data.map((i) => i.id);
    const ids = (rows: typeof made) => rows.map((r) => r.id);
    const byId = [...made].sort((x, y) => x.id - y.id);
    const expected: Record<string, number[]> = {
      creation: ids(byId),
      name: ids([...made].sort((x, y) => x.name.localeCompare(y.name))),
      group: ids([...made].sort((x, y) => x.group.localeCompare(y.group) || x.id - y.id)),
    };
    for (const [sort, order] of Object.entries(expected)) {
      for (const [key, want] of [
        [sort, order],
        [`-${sort}`, [...order].reverse()],
      ] as const) {
        expect(await list(`sort=${key}`), key).toEqual(want);
        const paged = [
          ...(await list(`sort=${key}&limit=2`)),
          ...(await list(`sort=${key}&limit=2&offset=2`)),
          ...(await list(`sort=${key}&limit=2&offset=4`)),
        ];
        expect(paged, `${key}, two by two`).toEqual(want);
      }
    }
    expect(await list('')).toEqual([...expected.creation!].reverse());
  });

  it('filters by group, sorts and paginates', async () => {
    const page = (await get(`/cartera/leads?group_id=${group2.id}&sort=-name&limit=1&offset=1`)).json();
    expect(page.data.map((i: Item) => i.lead)).toEqual(['Direct Lead']);
    expect(page.pagination).toEqual({ limit: 1, offset: 1, total: 2, total_capped: false });
    const byGroup = (await get('/cartera/leads?sort=group')).json().data.map((i: { group: string }) => i.group);
    expect(byGroup).toEqual([...byGroup].sort());
    expect((await get('/cartera/leads?sort=seller')).json()).toMatchObject({ code: 'validation_failed' });
    expect((await get('/cartera/leads?limit=500')).statusCode).toBe(400);
  });

  it("lists only the caller's entity, and clients only in the clients list", async () => {
    const ids = (await get('/cartera/leads?limit=200')).json().data.map((i: Item) => i.id);
    expect(ids).not.toContain(leads.foreign!.id);
    expect(ids).not.toContain(leads.client!.id);
    const clients = (await get('/cartera/clients')).json();
    expect(clients.data).toEqual([
      expect.objectContaining({ id: leads.client!.id, client: 'Client One', erpId: 'ERP-1', seller: expect.objectContaining({ source: 'group' }) }),
    ]);
  });
});

describe('cartera items as stored', () => {
  it('answers the stored items as the response schema describes them, names exactly as written', async () => {
    const groupName = 'Grupo "Ñandú" \\ 😀';
    const leadName = 'Léad "quoted" \\ back </script>\ttab 😀';
    const group = await makeGroup(t.database.db, entityA, groupName);
    const lead = await makeLead(t.database.db, { entityId: entityA, groupId: group.id, name: leadName });
    await assignLead(t.database.db, entityA, sellerL.employeeId, lead.id);
    await makeContact(t.database.db, { entityId: entityA, leadId: lead.id, name: 'Contacto «único»' });

    const res = await get(`/cartera/leads?group_id=${group.id}`);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(Errors(CarteraLeadList, body)).toEqual([]);
    const [created] = await queryRows<{ ms: string }>(t.database.db, sql`select extract(epoch from created_at) * 1000 as ms from lead where id = ${lead.id}`);
    expect(body.data).toEqual([
      {
        id: lead.id,
        groupId: group.id,
        group: groupName,
        lead: leadName,
        erpId: null,
        creation: new Date(Number(created!.ms)).toISOString(),
        seller: { id: sellerL.employeeId, name: 'Leonel Directo', source: 'lead' },
        sellers: { direct: [{ id: sellerL.employeeId, name: 'Leonel Directo' }], inherited: [] },
        contact: { id: expect.any(Number), name: 'Contacto «único»' },
        lastPurchase: null,
        frequency: null,
        agenda: null,
        interaction: null,
      },
    ]);
    // The detail reads the same stored item.
    const detail = (await get(`/cartera/leads/${lead.id}`)).json();
    expect(detail).toEqual({ ...body.data[0], email: null, phone: null, taxId: null });

    const clients = (await get('/cartera/clients')).json();
    expect(Errors(CarteraClientList, clients)).toEqual([]);
    expect(clients.data[0]).not.toHaveProperty('lead');
  });
});

describe('cartera detail', () => {
  it('reads and edits a lead detail and a client detail under their own paths', async () => {
    const detail = (await get(`/cartera/leads/${leads.direct!.id}`)).json();
    expect(detail).toMatchObject({ id: leads.direct!.id, lead: 'Direct Lead', email: null, seller: { source: 'lead' } });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/cartera/leads/${leads.direct!.id}`,
      headers: bearer(token),
      payload: { phone: '5555 9999', taxId: '1234567-8' },
    });
    expect(patched.json()).toMatchObject({ phone: '+50255559999', taxId: '1234567-8' });
    const client = await t.app.inject({
      method: 'PATCH',
      url: `/api/cartera/clients/${leads.client!.id}`,
      headers: bearer(token),
      payload: { name: 'Client Uno' },
    });
    expect(client.json()).toMatchObject({ client: 'Client Uno', erpId: 'ERP-1' });
  });

  it("answers 404 for a client under /leads, a lead under /clients, and another entity's records", async () => {
    expect((await get(`/cartera/leads/${leads.client!.id}`)).json()).toMatchObject({ code: 'not_found' });
    expect((await get(`/cartera/clients/${leads.direct!.id}`)).statusCode).toBe(404);
    expect((await get(`/cartera/leads/${leads.foreign!.id}`)).statusCode).toBe(404);
    expect((await get(`/cartera/clients/${leads.foreignClient!.id}`)).statusCode).toBe(404);
    const patch = await t.app.inject({ method: 'PATCH', url: `/cartera/leads/${leads.foreign!.id}`, headers: bearer(token), payload: { name: 'x' } });
    expect(patch.statusCode).toBe(404);
    const patchClient = await t.app.inject({
      method: 'PATCH',
      url: `/cartera/clients/${leads.foreignClient!.id}`,
      headers: bearer(token),
      payload: { name: 'x' },
    });
    expect(patchClient.json()).toMatchObject({ code: 'not_found' });
  });

  it('answers 400 for an empty or invalid PATCH', async () => {
    const empty = await t.app.inject({ method: 'PATCH', url: `/cartera/leads/${leads.direct!.id}`, headers: bearer(token), payload: {} });
    expect(empty.json()).toMatchObject({ code: 'validation_failed' });
    const bad = await t.app.inject({ method: 'PATCH', url: `/cartera/leads/${leads.direct!.id}`, headers: bearer(token), payload: { phone: '1' } });
    expect(bad.json().errors[0].field).toBe('/body/phone');
  });
});

describe('GET /cartera/export.xlsx', () => {
  it('streams a real spreadsheet of the same filtered view', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/cartera/export.xlsx?kind=lead&group_id=${group1.id}`, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    expect(res.headers['content-disposition']).toContain('cartera-leads.xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Leads')!;
    const rows = sheet
      .getSheetValues()
      .slice(2)
      .map((r) => (r as unknown[]).slice(1));
    expect(sheet.getRow(1).values).toEqual([undefined, 'Id', 'Group', 'Lead', 'ERP id', 'Creation', 'Seller', 'Seller source', 'Contact']);
    expect(rows.map((r) => [r[0], r[2], r[5], r[6]])).toEqual([
      [leads.inherited!.id, 'Inherited Lead', 'Gabriela Grupo', 'group'],
      [leads.both!.id, 'Both Lead', 'Leonel Directo', 'lead'],
    ]);
  });

  it('exports clients only for kind=client and never another entity', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/cartera/export.xlsx?kind=client', headers: bearer(token) });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const ids = workbook
      .getWorksheet('Clients')!
      .getSheetValues()
      .slice(2)
      .map((r) => (r as unknown[])[1]);
    expect(ids).toEqual([leads.client!.id]);
    expect((await get('/cartera/export.xlsx?kind=other')).json()).toMatchObject({ code: 'validation_failed' });
  });
});
