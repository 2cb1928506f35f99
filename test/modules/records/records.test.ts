import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeContact, makeGroup, makeLead } from '../../helpers/records-factories.js';
import { recordQueries } from '../../helpers/query-counter.js';
import { sql } from 'drizzle-orm';
import { Errors } from 'typebox/value';
import { LeadListResponse } from '../../../src/modules/records/lead.schemas.js';
import type { DomainEventMap } from '../../../src/platform/events/bus.js';

let t: TestContext;
let entityA: number;
let entityB: number;
let member: Member;
let token: string;
let foreign: { groupId: number; leadId: number; contactId: number };

const CODES = ['groups.create', 'groups.edit', 'leads.create', 'leads.edit', 'contacts.create', 'contacts.edit', 'custom_field_types.view'];

beforeAll(async () => {
  t = await createTestApp();
  entityA = (await makeEntity(t.database.db)).id;
  entityB = (await makeEntity(t.database.db)).id;
  member = await makeMember(t.database.db, { entityId: entityA, codes: CODES });
  token = await tokenFor(t.app, member);
  const fc = await makeContact(t.database.db, { entityId: entityB, name: 'Foreign contact', channels: [{ type: 'email', identifier: 'foreign@example.com' }] });
  foreign = { groupId: fc.groupId, leadId: fc.leadId, contactId: fc.id };
});
afterAll(async () => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
const send = (method: 'POST' | 'PATCH', url: string, payload: object) => t.app.inject({ method, url, headers: bearer(token), payload });

describe('groups', () => {
  it('creates, reads, renames and lists groups searchable by name', async () => {
    const created = await send('POST', '/groups', { name: ' Zeta Traders ' });
    expect(created.statusCode).toBe(201);
    const g = created.json();
    expect(g).toMatchObject({ name: 'Zeta Traders' });
    expect((await get(`/groups/${g.id}`)).json()).toMatchObject({ id: g.id, name: 'Zeta Traders' });
    expect((await send('PATCH', `/groups/${g.id}`, { name: 'Zeta Trading' })).json()).toMatchObject({ name: 'Zeta Trading' });
    const found = (await get('/api/groups?search=zeta%20trad')).json();
    expect(found.data.map((x: { id: number }) => x.id)).toEqual([g.id]);
    expect(found.pagination).toEqual({ limit: 50, offset: 0, total: 1 });
  });

  it('answers 400 validation_failed for an empty name and an unknown PATCH body', async () => {
    const res = await send('POST', '/groups', { name: '   ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect((await send('PATCH', '/groups/1', {})).json()).toMatchObject({ code: 'validation_failed' });
  });

  it('answers 400 invalid_text for a name holding the NUL character and creates nothing', async () => {
    const res = await send('POST', '/groups', { name: 'Nul\u0000Group' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_text', status: 400 });
    expect((await get('/groups?search=Nul')).json().data).toEqual([]);
  });

  it("answers 404 not_found for another entity's group and leaves it out of lists", async () => {
    expect((await get(`/groups/${foreign.groupId}`)).json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await send('PATCH', `/groups/${foreign.groupId}`, { name: 'x' })).statusCode).toBe(404);
    const all = (await get('/groups?limit=200')).json();
    expect(all.data.some((x: { id: number }) => x.id === foreign.groupId)).toBe(false);
  });

  it('caps the page size at 200 with 400 and pages with limit and offset', async () => {
    expect((await get('/groups?limit=201')).json()).toMatchObject({ code: 'validation_failed' });
    expect((await get('/groups?limit=0')).statusCode).toBe(400);
    for (let i = 0; i < 3; i++) await makeGroup(t.database.db, entityA, `Paged ${i}`);
    const page = (await get('/groups?search=Paged&limit=2&offset=2')).json();
    expect(page.data.map((x: { name: string }) => x.name)).toEqual(['Paged 2']);
    expect(page.pagination).toEqual({ limit: 2, offset: 2, total: 3 });
  });
});

describe('leads and clients', () => {
  it('creates a lead, publishes lead.created, and makes it a client when erp_id is set', async () => {
    const events: DomainEventMap['lead.created'][] = [];
    const off = t.app.ctx.events.subscribe('lead.created', (e) => void events.push(e));
    const group = await makeGroup(t.database.db, entityA);
    const res = await send('POST', '/leads', { group_id: group.id, name: 'Pedro Gómez', phone: '5555 1234', email: 'Pedro@Example.com' });
    off();
    expect(res.statusCode).toBe(201);
    const lead = res.json();
    expect(lead).toMatchObject({ kind: 'lead', erp_id: null, phone: '+50255551234', email: 'pedro@example.com', group_id: group.id });
    expect(events).toEqual([expect.objectContaining({ entityId: entityA, leadId: lead.id, groupId: group.id, createdByEmployeeId: member.employeeId })]);
    const client = (await send('PATCH', `/leads/${lead.id}`, { erp_id: 'ERP-77' })).json();
    expect(client).toMatchObject({ kind: 'client', erp_id: 'ERP-77' });
    const clients = (await get(`/leads?kind=client&group_id=${group.id}`)).json();
    expect(clients.data.map((l: { id: number }) => l.id)).toEqual([lead.id]);
    expect((await get(`/leads?kind=lead&group_id=${group.id}`)).json().pagination.total).toBe(0);
  });

  it('answers 409 already_exists when the erp_id belongs to another lead', async () => {
    const a = await makeLead(t.database.db, { entityId: entityA, erpId: 'DUP-1' });
    const b = await makeLead(t.database.db, { entityId: entityA });
    const res = await send('PATCH', `/leads/${b.id}`, { erp_id: 'DUP-1' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'already_exists', lead_id: a.id });
  });

  it("answers 400 for another entity's group, a bad phone, and a missing name", async () => {
    const res = await send('POST', '/leads', { group_id: foreign.groupId, name: 'x' });
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body/group_id' }] });
    const group = await makeGroup(t.database.db, entityA);
    expect((await send('POST', '/leads', { group_id: group.id, name: 'x', phone: '12' })).json().errors).toEqual([
      expect.objectContaining({ field: '/body/phone' }),
    ]);
    expect((await send('POST', '/leads', { group_id: group.id })).json().errors).toEqual([expect.objectContaining({ field: '/body/name' })]);
  });

  it("answers 404 for another entity's lead and never lists it", async () => {
    expect((await get(`/leads/${foreign.leadId}`)).json()).toMatchObject({ code: 'not_found' });
    expect((await send('PATCH', `/leads/${foreign.leadId}`, { name: 'x' })).statusCode).toBe(404);
    const all = (await get('/leads?limit=200')).json();
    expect(all.data.every((l: { id: number }) => l.id !== foreign.leadId)).toBe(true);
  });

  it('caps the count at 1000 rows (total_capped) and counts exactly when a deep page needs it', async () => {
    const group = await makeGroup(t.database.db, entityA);
    await t.database.executeSql(`insert into lead (entity_id, group_id, name) select $1, $2, 'Bulk ' || i from generate_series(1, 1005) i`, [
      entityA,
      group.id,
    ]);
    const first = (await get(`/leads?group_id=${group.id}&limit=10`)).json();
    expect(first.pagination).toEqual({ limit: 10, offset: 0, total: 1000, total_capped: true });
    const deep = (await get(`/leads?group_id=${group.id}&limit=10&offset=1000`)).json();
    expect(deep.data).toHaveLength(5);
    expect(deep.pagination).toEqual({ limit: 10, offset: 1000, total: 1005, total_capped: false });
    const past = (await get(`/leads?group_id=${group.id}&limit=10&offset=2000`)).json();
    expect(past).toEqual({ data: [], pagination: { limit: 10, offset: 2000, total: 1005, total_capped: false } });
  });

  it('does not count a list again once it reached its cap, and counts again when a short page shows rows left it', async () => {
    const group = await makeGroup(t.database.db, entityA);
    await t.database.executeSql(`insert into lead (entity_id, group_id, name) select $1, $2, 'Bulk ' || i from generate_series(1, 1001) i`, [
      entityA,
      group.id,
    ]);
    const leadPage = (s: string) => s.includes('from lead l where');
    const listed = async (url: string) => {
      const recorder = recordQueries();
      const res = await get(url);
      recorder.stop();
      return { body: res.json(), counted: recorder.statements.filter(leadPage).some((s) => /count\(\*\)::int from \(select 1 from lead/.test(s)) };
    };
    const first = await listed(`/leads?group_id=${group.id}&limit=10`);
    expect(first).toMatchObject({ counted: true, body: { pagination: { limit: 10, offset: 0, total: 1000, total_capped: true } } });
    const again = await listed(`/leads?group_id=${group.id}&limit=10&offset=10`);
    expect(again.counted).toBe(false);
    expect(again.body.data).toHaveLength(10);
    expect(again.body.pagination).toEqual({ limit: 10, offset: 10, total: 1000, total_capped: true });
    // Another entity's list with the same filter values is its own list: its count is not entity A's.
    expect((await listed('/leads?limit=10')).body.pagination).toMatchObject({ total: 1000, total_capped: true });
    await t.database.executeSql(`insert into lead (entity_id, group_id, name) select $1, $2, 'B ' || i from generate_series(1, 11) i`, [
      entityB,
      foreign.groupId,
    ]);
    const other = await makeMember(t.database.db, { entityId: entityB, codes: ['leads.view'] });
    const foreignList = await t.app.inject({ method: 'GET', url: '/leads?limit=10', headers: bearer(await tokenFor(t.app, other)) });
    expect(foreignList.json().pagination).toEqual({ limit: 10, offset: 0, total: 12, total_capped: false });
    // Rows leave the list: the first short page is counted again, exactly.
    await t.database.executeSql(`delete from lead where entity_id = $1 and group_id = $2 and name <> 'Bulk 1'`, [entityA, group.id]);
    const after = await listed(`/leads?group_id=${group.id}&limit=10`);
    expect(after.counted).toBe(true);
    expect(after.body.data.map((l: { name: string }) => l.name)).toEqual(['Bulk 1']);
    expect(after.body.pagination).toEqual({ limit: 10, offset: 0, total: 1, total_capped: false });
  });

  it('lists each lead exactly as its detail answers it, after every kind of write', async () => {
    const group = await makeGroup(t.database.db, entityA);
    const name = 'Léad "quoted" \\ back </script>\ttab 😀';
    const created = (await send('POST', '/leads', { group_id: group.id, name, email: 'Ana@Example.com', phone: '5555 4321', tax_id: '12345-6' })).json();
    const listed = async () => {
      const res = await get(`/leads?group_id=${group.id}`);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json();
      expect(Errors(LeadListResponse, body)).toEqual([]);
      expect(body.pagination).toEqual({ limit: 50, offset: 0, total: 1, total_capped: false });
      return body.data;
    };
    const detail = async () => (await get(`/leads/${created.id}`)).json();
    expect(await listed()).toEqual([created]);
    expect(created).toMatchObject({ name, kind: 'lead', email: 'ana@example.com', phone: '+50255554321', tax_id: '12345-6' });

    // Through the API: a client now, with a new updated_at.
    const client = (await send('PATCH', `/leads/${created.id}`, { erp_id: 'ERP-LIST-1', email: null })).json();
    expect(client).toMatchObject({ kind: 'client', erp_id: 'ERP-LIST-1', email: null });
    expect(await listed()).toEqual([client]);

    // Straight to the database, with triggers disabled as a bulk load runs: the list item follows the row.
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update lead set name = 'Renamed in bulk', erp_id = null, updated_at = '2026-01-02T03:04:05.678Z' where id = ${created.id}`);
    });
    const renamed = await detail();
    expect(renamed).toMatchObject({ name: 'Renamed in bulk', kind: 'lead', erp_id: null, updated_at: '2026-01-02T03:04:05.678Z' });
    expect(await listed()).toEqual([renamed]);
  });

  it('searches by name and moves contacts with their lead to another group', async () => {
    const lead = await makeLead(t.database.db, { entityId: entityA, name: 'Searchable Quetzal' });
    const contact = await makeContact(t.database.db, { entityId: entityA, leadId: lead.id });
    expect((await get('/leads?search=quetzal')).json().data.map((l: { id: number }) => l.id)).toEqual([lead.id]);
    const target = await makeGroup(t.database.db, entityA);
    await send('PATCH', `/leads/${lead.id}`, { group_id: target.id });
    const moved = await get(`/contacts?group_id=${target.id}`);
    expect(moved.json().data.map((c: { id: number }) => c.id)).toEqual([contact.id]);
  });
});

describe('contacts and their channels', () => {
  it('creates a contact with normalized channels, publishes contact.created and lists it by group in ONE SQL query', async () => {
    const events: DomainEventMap['contact.created'][] = [];
    const off = t.app.ctx.events.subscribe('contact.created', (e) => void events.push(e));
    const lead = await makeLead(t.database.db, { entityId: entityA });
    const res = await send('POST', '/contacts', {
      lead_id: lead.id,
      name: 'Lucía Ortiz',
      channels: [
        { type: 'whatsapp', identifier: '502 5555 0001', label: 'personal' },
        { type: 'email', identifier: 'Lucia@Example.COM' },
        { type: 'email', identifier: 'lucia@example.com' },
      ],
    });
    off();
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({ lead_id: lead.id, group_id: lead.groupId, hasCustomFieldValues: false, customFieldValuesCount: 0 });
    expect(c.channels).toEqual([
      expect.objectContaining({ type: 'whatsapp', identifier: '+50255550001', label: 'personal', is_manual: true }),
      expect.objectContaining({ type: 'email', identifier: 'lucia@example.com', is_manual: true }),
    ]);
    expect(events).toEqual([expect.objectContaining({ contactId: c.id, leadId: lead.id, groupId: lead.groupId, source: 'api' })]);

    // Baseline: a route that reads nothing but authenticates; the difference is the list's own statements.
    const baseline = recordQueries();
    await get('/custom-field-types');
    baseline.stop();
    const recorder = recordQueries();
    const list = await get(`/contacts?group_id=${lead.groupId}`);
    recorder.stop();
    expect(list.json().data.map((x: { id: number }) => x.id)).toEqual([c.id]);
    expect(list.json().pagination.total).toBe(1);
    // The job queue and the inbox sweeper poll on their own timers; their statements are not the request's.
    const requestStatements = (r: { statements: string[] }) => r.statements.filter((s) => !/\bpgboss\.|interaction_webhook_inbox/.test(s));
    expect(requestStatements(recorder).length - requestStatements(baseline).length).toBe(1);
    expect(recorder.statements.filter((s) => /from contact c/.test(s))).toHaveLength(1);
  });

  it('replaces only manual channels on PATCH and keeps channels learned from conversations', async () => {
    const contact = await makeContact(t.database.db, { entityId: entityA, channels: [{ type: 'phone', identifier: '+50255550100' }] });
    // A channel learned from a conversation (not manual).
    await t.database.executeSql(
      `insert into contact_channel (entity_id, contact_id, type, identifier, is_manual) values ($1, $2, 'instagram', 'ig-123', false)`,
      [entityA, contact.id],
    );
    const res = await send('PATCH', `/contacts/${contact.id}`, { name: 'Renamed', manual_channels: [{ type: 'email', identifier: 'new@example.com' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().name).toBe('Renamed');
    expect(res.json().channels.map((ch: { type: string; identifier: string; is_manual: boolean }) => [ch.type, ch.identifier, ch.is_manual])).toEqual([
      ['instagram', 'ig-123', false],
      ['email', 'new@example.com', true],
    ]);
  });

  it('answers 409 channel_taken when another contact of the entity holds the identifier, but not for another entity', async () => {
    const holder = await makeContact(t.database.db, { entityId: entityA, channels: [{ type: 'email', identifier: 'taken@example.com' }] });
    const lead = await makeLead(t.database.db, { entityId: entityA });
    const res = await send('POST', '/contacts', { lead_id: lead.id, name: 'Dup', channels: [{ type: 'email', identifier: 'TAKEN@example.com' }] });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'channel_taken', contact_id: holder.id });
    const ok = await send('POST', '/contacts', { lead_id: lead.id, name: 'Same as foreign', channels: [{ type: 'email', identifier: 'foreign@example.com' }] });
    expect(ok.statusCode).toBe(201);
  });

  it('answers 400 naming each invalid channel and an unknown lead', async () => {
    const lead = await makeLead(t.database.db, { entityId: entityA });
    const res = await send('POST', '/contacts', {
      lead_id: lead.id,
      name: 'Bad',
      channels: [
        { type: 'email', identifier: 'nope' },
        { type: 'phone', identifier: '1' },
      ],
    });
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['/body/channels/0/identifier', '/body/channels/1/identifier']);
    expect((await send('POST', '/contacts', { lead_id: foreign.leadId, name: 'x' })).json().errors[0].field).toBe('/body/lead_id');
    expect((await send('POST', '/contacts', { lead_id: lead.id, name: 'x', channels: [{ type: 'fax', identifier: '1' }] })).statusCode).toBe(400);
  });

  it("answers 404 for another entity's contact and excludes it from lists", async () => {
    const viewer = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA, codes: ['contacts.edit'] }));
    expect((await t.app.inject({ method: 'GET', url: `/contacts/${foreign.contactId}`, headers: bearer(viewer) })).json()).toMatchObject({ code: 'not_found' });
    expect((await t.app.inject({ method: 'PATCH', url: `/contacts/${foreign.contactId}`, headers: bearer(viewer), payload: { name: 'x' } })).statusCode).toBe(
      404,
    );
    const byGroup = await t.app.inject({ method: 'GET', url: `/contacts?group_id=${foreign.groupId}`, headers: bearer(viewer) });
    expect(byGroup.json()).toMatchObject({ data: [], pagination: { total: 0 } });
    const all = await t.app.inject({ method: 'GET', url: '/contacts?limit=200', headers: bearer(viewer) });
    expect(all.json().data.every((c: { id: number }) => c.id !== foreign.contactId)).toBe(true);
  });
});
