/**
 * The stored seller derivation (`lead_seller`) stays right after every kind of change that affects it,
 * made through the API: lead creation, direct assignments, group assignments and a lead changing group.
 * Each step is checked through the cartera detail, both seller filters and the unassigned filter, and
 * against the derivation recomputed from the assignment tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeGroup, makeLead } from '../../helpers/records-factories.js';

let t: TestContext;
let entityA: number;
let token: string;
let ana: Member;
let beto: Member;
let carla: Member;
let g1: { id: number };
let g2: { id: number };

const CODES = ['leads.create', 'leads.edit', 'lead_assignments.manage', 'group_assignments.manage', 'cartera.leads_list.view', 'cartera.lead_detail.view'];

const req = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

async function ok(method: 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object) {
  const res = await req(method, url, payload);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? undefined : res.json();
}

interface Sellers {
  seller: { id: number; source: 'lead' | 'group' } | null;
  direct: number[];
  inherited: number[];
}

/** The lead's derivation as the cartera detail shows it. */
async function sellersOf(leadId: number): Promise<Sellers> {
  const item = (await req('GET', `/cartera/leads/${leadId}`)).json();
  return {
    seller: item.seller && { id: item.seller.id, source: item.seller.source },
    direct: item.sellers.direct.map((s: { id: number }) => s.id),
    inherited: item.sellers.inherited.map((s: { id: number }) => s.id),
  };
}

/** Lead ids the seller filters return for `employeeId`; both lists must agree. */
async function leadsOfSeller(employeeId: number): Promise<number[]> {
  const cartera = (await req('GET', `/cartera/leads?seller_id=${employeeId}&limit=200`)).json().data.map((i: { id: number }) => i.id);
  const leads = (await req('GET', `/leads?employee_id=${employeeId}&kind=lead&limit=200`)).json().data.map((l: { id: number }) => l.id);
  expect([...leads].sort()).toEqual([...cartera].sort());
  return cartera;
}

const unassigned = async (): Promise<number[]> => (await req('GET', '/cartera/leads?unassigned=true&limit=200')).json().data.map((i: { id: number }) => i.id);

/** Rows of `lead_seller` that differ from the derivation recomputed from the assignment tables (none when in sync). */
async function drift(): Promise<unknown[]> {
  const { rows } = await t.database.executeSql(
    `with expected as (
       select la.lead_id, la.employee_id, 'lead' as via, la.id as assignment_id, true as effective from lead_assignment la where la.entity_id = $1
       union all
       select l.id, ga.employee_id, 'group', ga.id, not exists (select 1 from lead_assignment d where d.lead_id = l.id)
         from lead l join group_assignment ga on ga.group_id = l.group_id where l.entity_id = $1),
     stored as (select lead_id, employee_id, via::text as via, assignment_id, effective from lead_seller where entity_id = $1)
     (select 'missing' as problem, * from (select * from expected except select * from stored) m)
     union all (select 'stale', * from (select * from stored except select * from expected) s)`,
    [entityA],
  );
  return rows;
}

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  entityA = (await makeEntity(db)).id;
  token = await tokenFor(t.app, await makeMember(db, { entityId: entityA, codes: CODES }));
  ana = await makeMember(db, { entityId: entityA, name: 'Ana Grupo Uno' });
  beto = await makeMember(db, { entityId: entityA, name: 'Beto Grupo Dos' });
  carla = await makeMember(db, { entityId: entityA, name: 'Carla Directa' });
  g1 = await makeGroup(db, entityA, 'Group One');
  g2 = await makeGroup(db, entityA, 'Group Two');
  await ok('POST', '/group-assignments', { employee_id: ana.employeeId, group_ids: [g1.id] });
  await ok('POST', '/group-assignments', { employee_id: beto.employeeId, group_ids: [g2.id] });
});
afterAll(async () => t.close());

describe('stored seller derivation', () => {
  it('gives a lead created in an assigned group its inherited seller', async () => {
    const lead = await ok('POST', '/leads', { group_id: g1.id, name: 'Created In One' });
    expect(await sellersOf(lead.id)).toEqual({ seller: { id: ana.employeeId, source: 'group' }, direct: [], inherited: [ana.employeeId] });
    expect(await leadsOfSeller(ana.employeeId)).toContain(lead.id);
    expect(await unassigned()).not.toContain(lead.id);
    expect(await drift()).toEqual([]);
  });

  it('lets a direct assignment win over the group, and gives the group seller back when it is removed', async () => {
    const lead = await ok('POST', '/leads', { group_id: g1.id, name: 'Direct Over One' });
    const assignment = await ok('POST', '/lead-assignments', { lead_id: lead.id, employee_id: carla.employeeId });
    expect(await sellersOf(lead.id)).toEqual({ seller: { id: carla.employeeId, source: 'lead' }, direct: [carla.employeeId], inherited: [ana.employeeId] });
    expect(await leadsOfSeller(carla.employeeId)).toContain(lead.id);
    expect(await leadsOfSeller(ana.employeeId)).not.toContain(lead.id);
    expect(await drift()).toEqual([]);

    await ok('DELETE', `/lead-assignments/${assignment.id}`);
    expect(await sellersOf(lead.id)).toEqual({ seller: { id: ana.employeeId, source: 'group' }, direct: [], inherited: [ana.employeeId] });
    expect(await leadsOfSeller(carla.employeeId)).not.toContain(lead.id);
    expect(await leadsOfSeller(ana.employeeId)).toContain(lead.id);
    expect(await drift()).toEqual([]);
  });

  it('updates every lead of a group when the group is assigned and unassigned', async () => {
    const g3 = await makeGroup(t.database.db, entityA, 'Group Three');
    const plain = await ok('POST', '/leads', { group_id: g3.id, name: 'Plain In Three' });
    const direct = await ok('POST', '/leads', { group_id: g3.id, name: 'Direct In Three' });
    await ok('POST', '/lead-assignments', { lead_id: direct.id, employee_id: carla.employeeId });
    expect(await unassigned()).toContain(plain.id);

    const assigned = await ok('POST', '/group-assignments', { employee_id: beto.employeeId, group_ids: [g3.id] });
    expect(await sellersOf(plain.id)).toEqual({ seller: { id: beto.employeeId, source: 'group' }, direct: [], inherited: [beto.employeeId] });
    expect(await sellersOf(direct.id)).toEqual({ seller: { id: carla.employeeId, source: 'lead' }, direct: [carla.employeeId], inherited: [beto.employeeId] });
    const ofBeto = await leadsOfSeller(beto.employeeId);
    expect(ofBeto).toContain(plain.id);
    expect(ofBeto).not.toContain(direct.id);
    expect(await unassigned()).not.toContain(plain.id);
    expect(await drift()).toEqual([]);

    await ok('DELETE', `/group-assignments/${assigned.data[0].id}`);
    expect(await sellersOf(plain.id)).toEqual({ seller: null, direct: [], inherited: [] });
    expect(await sellersOf(direct.id)).toEqual({ seller: { id: carla.employeeId, source: 'lead' }, direct: [carla.employeeId], inherited: [] });
    expect(await leadsOfSeller(beto.employeeId)).not.toContain(plain.id);
    expect(await unassigned()).toContain(plain.id);
    expect(await drift()).toEqual([]);
  });

  it('replaces the inherited sellers of a lead that changes group and keeps its direct ones', async () => {
    const moving = await ok('POST', '/leads', { group_id: g1.id, name: 'Moving Lead' });
    const movingDirect = await ok('POST', '/leads', { group_id: g1.id, name: 'Moving Direct Lead' });
    await ok('POST', '/lead-assignments', { lead_id: movingDirect.id, employee_id: carla.employeeId });

    await ok('PATCH', `/leads/${moving.id}`, { group_id: g2.id });
    await ok('PATCH', `/leads/${movingDirect.id}`, { group_id: g2.id });
    expect(await sellersOf(moving.id)).toEqual({ seller: { id: beto.employeeId, source: 'group' }, direct: [], inherited: [beto.employeeId] });
    expect(await sellersOf(movingDirect.id)).toEqual({
      seller: { id: carla.employeeId, source: 'lead' },
      direct: [carla.employeeId],
      inherited: [beto.employeeId],
    });
    expect(await leadsOfSeller(ana.employeeId)).not.toContain(moving.id);
    expect(await leadsOfSeller(beto.employeeId)).toContain(moving.id);
    expect(await drift()).toEqual([]);
  });

  it('keeps leads written by the repository (seeds, imports) in sync, and orders each source by assignment', async () => {
    const db = t.database.db;
    const g4 = await makeGroup(db, entityA, 'Group Four');
    await ok('POST', '/group-assignments', { employee_id: beto.employeeId, group_ids: [g4.id] });
    await ok('POST', '/group-assignments', { employee_id: ana.employeeId, group_ids: [g4.id] });
    const lead = await makeLead(db, { entityId: entityA, groupId: g4.id, name: 'Seeded Lead' });
    expect(await sellersOf(lead.id)).toEqual({ seller: { id: beto.employeeId, source: 'group' }, direct: [], inherited: [beto.employeeId, ana.employeeId] });
    expect(await drift()).toEqual([]);
  });

  it('stays in sync when changes to the same leads and groups run concurrently', async () => {
    const db = t.database.db;
    const g5 = await makeGroup(db, entityA, 'Group Five');
    const g6 = await makeGroup(db, entityA, 'Group Six');
    const leads = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => ok('POST', '/leads', { group_id: i % 2 ? g5.id : g6.id, name: `Busy Lead ${i}` })));
    await Promise.all([
      ok('POST', '/group-assignments', { employee_id: ana.employeeId, group_ids: [g5.id, g6.id] }),
      ok('POST', '/group-assignments', { employee_id: beto.employeeId, group_ids: [g6.id] }),
      ...leads.slice(0, 3).map((l) => ok('PATCH', `/leads/${l.id}`, { group_id: g6.id })),
      ...leads.slice(3).map((l) => ok('PATCH', `/leads/${l.id}`, { group_id: g5.id })),
      ...leads.map((l, i) => (i % 3 === 0 ? ok('POST', '/lead-assignments', { lead_id: l.id, employee_id: carla.employeeId }) : Promise.resolve())),
      ok('POST', '/leads', { group_id: g5.id, name: 'Busy Lead 7' }),
    ]);
    expect(await drift()).toEqual([]);
  });
});
