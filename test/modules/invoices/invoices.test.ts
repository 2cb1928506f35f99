import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';
import type { SimLine } from '../../../sim/erp/data.js';
import { crmGroup } from '../../../src/modules/records/group.table.js';
import { lead } from '../../../src/modules/records/lead.table.js';
import { todayIn } from '../../../src/modules/invoices/invoice-lines.js';

let sim: ErpSimulator;
let t: TestContext;
let tokenA: string;
let tokenB: string;
let tokenNoPerm: string;
let group: number;
let emptyGroup: number;
let quietGroup: number;
let groupB: number;
let entityA: number;

const today = todayIn('America/Guatemala');
const dayOffset = (n: number) => new Date(Date.parse(today) - n * 86_400_000).toISOString().slice(0, 10);
const get = (url: string, token = tokenA) => t.app.inject({ method: 'GET', url, headers: bearer(token) });

function line(id: string, partial: Partial<SimLine>): SimLine {
  return { id, quantity: 1, unitPrice: 10, itemId: null, bundleId: null, serial: null, lot: null, ...partial };
}

beforeAll(async () => {
  sim = await startTestErp();
  t = await createTestApp({ env: erpEnv(sim) });
  const db = t.database.db;
  const a = await makeEntity(db, 'Alpha');
  const b = await makeEntity(db, 'Beta');
  entityA = a.id;
  await linkEntity(db, sim, a.id, 901);
  await linkEntity(db, sim, b.id, 902);
  const insertGroup = async (entityId: number, name: string) => (await db.insert(crmGroup).values({ entityId, name }).returning())[0]!.id;
  group = await insertGroup(a.id, 'Ceiba');
  emptyGroup = await insertGroup(a.id, 'No clients');
  quietGroup = await insertGroup(a.id, 'Clients without invoices');
  groupB = await insertGroup(b.id, 'Beta group');
  await db.insert(lead).values([
    { entityId: a.id, groupId: group, name: 'Ceiba Norte', erpId: 'C-1' },
    { entityId: a.id, groupId: group, name: 'Ceiba Sur', erpId: 'C-2' },
    { entityId: a.id, groupId: group, name: 'A lead, not a client' },
    { entityId: a.id, groupId: emptyGroup, name: 'Only a lead' },
    { entityId: a.id, groupId: quietGroup, name: 'Quiet client', erpId: 'C-3' },
    { entityId: b.id, groupId: groupB, name: 'Beta client', erpId: 'C-1' },
  ]);

  sim.data.products.push(
    { id: 'P-1', code: 'CAF', name: 'Coffee', productType: 'goods' },
    { id: 'P-2', code: 'MED', name: 'Medicine', productType: 'goods' },
    { id: 'P-3', code: 'LAP', name: 'Laptop', productType: 'goods' },
    { id: 'P-4', code: 'SRV', name: 'Service', productType: 'service' },
  );
  sim.data.bundles.push({ id: 'B-1', code: 'KIT', name: 'Office kit' });
  const inv = (id: string, entityId: number, clientId: string, offset: number, lines: SimLine[], status: 'issued' | 'void' = 'issued') => ({
    id,
    number: `F-${id}`,
    entityId,
    clientId,
    date: dayOffset(offset),
    issuedAt: `${dayOffset(offset)}T1${id.length % 10}:00:00.000Z`,
    currencyCode: 'GTQ',
    status,
    lines,
  });
  sim.data.invoices.push(
    inv('100', 901, 'C-1', 0, [line('l1', { itemId: 'P-1' })], 'void'),
    inv('101', 901, 'C-1', 1, [
      line('l2', { itemId: 'P-1', quantity: 2, unitPrice: 45 }),
      line('l3', { bundleId: 'B-1', unitPrice: 350 }),
      line('l4', { itemId: 'P-3', serial: { id: 'S-1', number: 'SN-001' } }),
      line('l5', { itemId: 'P-2', lot: { id: 'LOT-1', name: 'A-1', expirationDate: dayOffset(3) } }),
      line('l6', { itemId: 'P-2', lot: { id: 'LOT-2', name: 'A-2', expirationDate: dayOffset(-10) } }),
      line('l7', { itemId: 'P-2', lot: { id: 'LOT-3', name: 'A-3', expirationDate: dayOffset(-400) } }),
      line('l8', { itemId: 'P-2', lot: { id: 'LOT-4', name: 'A-4', expirationDate: null } }),
      line('l9', { itemId: 'P-4' }),
    ]),
    inv('102', 901, 'C-2', 1, [line('l10', { itemId: 'P-1', quantity: 3, unitPrice: 5 })]),
    inv('103', 901, 'C-9', 1, [line('l11', { itemId: 'P-1' })]),
    inv('104', 901, 'C-2', 4, [line('l12', { itemId: 'P-1' })]),
    inv('105', 901, 'C-1', 9, [line('l13', { itemId: 'P-1' })]),
    inv('201', 902, 'C-1', 2, [line('l14', { itemId: 'P-1' })]),
  );

  const memberA = await makeMember(db, { entityId: a.id, codes: ['groups.view'] });
  const memberB = await makeMember(db, { entityId: b.id, codes: ['groups.view'] });
  const noPerm = await makeMember(db, { entityId: a.id, codes: ['leads.view'] });
  erpUserFor(sim, memberA, [901]);
  erpUserFor(sim, memberB, [902]);
  erpUserFor(sim, noPerm, [901]);
  tokenA = (await loginWithErp(t.app, { email: memberA.email, password: memberA.password, entityId: a.id })).token;
  tokenB = (await loginWithErp(t.app, { email: memberB.email, password: memberB.password, entityId: b.id })).token;
  tokenNoPerm = (await loginWithErp(t.app, { email: noPerm.email, password: noPerm.password, entityId: a.id })).token;
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

describe('GET /groups/:id/invoices', () => {
  it("pages by day: page 1 is the most recent day with invoices of the group's clients", async () => {
    const res = await get(`/groups/${group}/invoices`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.day).toEqual({ date: dayOffset(1), invoiceCount: 2, totals: [{ currencyCode: 'GTQ', total: 90 + 350 + 10 * 6 + 15 }] });
    expect(body.data.map((i: { id: string }) => i.id).sort()).toEqual(['101', '102']);
    expect(body.data.find((i: { id: string }) => i.id === '101')).toMatchObject({
      clientErpId: 'C-1',
      clientName: 'Ceiba Norte',
      lineCount: 8,
      currencyCode: 'GTQ',
      date: dayOffset(1),
    });
    expect(body.pagination).toEqual({ mode: 'day', page: 1, totalPages: 3, hasNext: true, nextPage: 2, previousPage: null });
    expect(body.settings).toMatchObject({ clientCount: 2, timeZone: 'America/Guatemala' });
    expect(body.emptyState).toBeNull();
  });

  it('serves the n-th most recent day as page n, and an empty state beyond the last day', async () => {
    const p2 = (await get(`/groups/${group}/invoices?page=2`)).json();
    expect(p2.day.date).toBe(dayOffset(4));
    expect(p2.data.map((i: { id: string }) => i.id)).toEqual(['104']);
    const p3 = (await get(`/api/groups/${group}/invoices?page=3`)).json();
    expect(p3.day.date).toBe(dayOffset(9));
    expect(p3.pagination).toMatchObject({ page: 3, hasNext: false, nextPage: null, previousPage: 2 });
    const p4 = (await get(`/groups/${group}/invoices?page=4`)).json();
    expect(p4).toMatchObject({ data: [], day: null, emptyState: { reason: 'page_out_of_range' }, pagination: { totalPages: 3, previousPage: 3 } });
  });

  it('answers an empty state for a group without clients and for clients without invoices', async () => {
    expect((await get(`/groups/${emptyGroup}/invoices`)).json()).toMatchObject({
      data: [],
      emptyState: { reason: 'no_clients' },
      settings: { clientCount: 0 },
    });
    expect((await get(`/groups/${quietGroup}/invoices`)).json()).toMatchObject({
      data: [],
      emptyState: { reason: 'no_invoices' },
      pagination: { totalPages: 0 },
    });
  });

  it("shows only the caller entity's invoices and answers 404 for another entity's group", async () => {
    const b = (await get(`/groups/${groupB}/invoices`, tokenB)).json();
    expect(b.data.map((i: { id: string }) => i.id)).toEqual(['201']);
    const other = await get(`/groups/${groupB}/invoices`);
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('not_found');
    expect((await get('/groups/999999/invoices')).json().code).toBe('not_found');
  });

  it("answers 404 for another entity's group before asking for an ERP session (428 only for the caller's own group)", async () => {
    const noSession = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA, codes: ['groups.view'] }));
    for (const url of [`/groups/${groupB}/invoices`, `/groups/${groupB}/invoices/201`, '/groups/999999/invoices']) {
      const res = await get(url, noSession);
      expect({ url, status: res.statusCode, code: res.json().code }).toEqual({ url, status: 404, code: 'not_found' });
    }
    const own = await get(`/groups/${group}/invoices`, noSession);
    expect(own.statusCode).toBe(428);
    expect(own.json().code).toBe('erp_session_required');
  });

  it('answers 400 for a bad page or group id, 401 without a token and 403 without groups.view', async () => {
    for (const url of [`/groups/${group}/invoices?page=0`, `/groups/${group}/invoices?page=x`, '/groups/abc/invoices']) {
      const res = await get(url);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    const anon = await t.app.inject({ method: 'GET', url: `/groups/${group}/invoices` });
    expect(anon.statusCode).toBe(401);
    const denied = await get(`/groups/${group}/invoices`, tokenNoPerm);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: 'groups.view' });
  });

  it('answers 503 erp_unavailable when the ERP fails', async () => {
    sim.controls.failStatus = 500;
    sim.controls.failPaths = ['/graphql'];
    const res = await get(`/groups/${group}/invoices`);
    sim.controls.reset();
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('erp_unavailable');
  });
});

describe('GET /groups/:id/invoices/:invoiceId', () => {
  it('normalizes every line kind and keeps the raw fields', async () => {
    const res = await get(`/groups/${group}/invoices/101`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toMatchObject({ id: '101', clientErpId: 'C-1', lineCount: 8 });
    const byId = Object.fromEntries(data.lines.map((l: { id: string }) => [l.id, l]));
    expect(byId.l2).toMatchObject({
      lineKind: 'item',
      code: 'CAF',
      name: 'Coffee',
      productType: 'goods',
      trackingName: null,
      expirationDate: null,
      expirationLabel: null,
      quantity: 2,
      unitPrice: 45,
      total: 90,
      item: { id: 'P-1', code: 'CAF' },
      bundle: null,
      serial: null,
      lot: null,
      serialId: null,
      lotId: null,
    });
    expect(byId.l3).toMatchObject({
      lineKind: 'bundle',
      code: 'KIT',
      name: 'Office kit',
      productType: 'bundle',
      trackingName: null,
      item: null,
      bundle: { id: 'B-1' },
    });
    expect(byId.l4).toMatchObject({
      lineKind: 'serial',
      code: 'LAP',
      productType: 'goods',
      trackingName: 'SN-001',
      serial: { id: 'S-1', number: 'SN-001' },
      serialId: 'S-1',
      lotId: null,
    });
    expect(byId.l5).toMatchObject({
      lineKind: 'lot',
      code: 'MED',
      trackingName: 'A-1',
      expirationDate: dayOffset(3),
      expirationLabel: 'Expired on ' + dayOffset(3),
      lotId: 'LOT-1',
    });
    expect(byId.l6).toMatchObject({ lineKind: 'lot', expirationDate: dayOffset(-10), expirationLabel: 'Expires in 10 days' });
    expect(byId.l7).toMatchObject({ lineKind: 'lot', expirationLabel: `Expires on ${dayOffset(-400)}` });
    expect(byId.l8).toMatchObject({
      lineKind: 'lot',
      trackingName: 'A-4',
      expirationDate: null,
      expirationLabel: null,
      lot: { id: 'LOT-4', expirationDate: null },
    });
    expect(byId.l9).toMatchObject({ lineKind: 'item', productType: 'service', code: 'SRV' });
  });

  it("answers 404 for an invoice of a client outside the group, an unknown invoice, and another entity's group", async () => {
    for (const url of [
      `/groups/${group}/invoices/103`,
      `/groups/${group}/invoices/nope`,
      `/groups/${groupB}/invoices/201`,
      `/groups/${quietGroup}/invoices/101`,
    ]) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
  });

  it('answers 403 without groups.view and 401 without a token', async () => {
    expect((await get(`/groups/${group}/invoices/101`, tokenNoPerm)).json().code).toBe('permission_denied');
    expect((await t.app.inject({ method: 'GET', url: `/groups/${group}/invoices/101` })).statusCode).toBe(401);
  });
});
