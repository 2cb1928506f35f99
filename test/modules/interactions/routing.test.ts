import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { resetDatabase } from '../../helpers/test-db.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { assignLeadSeller, makeChannelAccount, makeContact } from '../../helpers/conversation-factories.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { queryRows } from '../../../src/db/client.js';
import { assignFromQueue } from '../../../src/modules/interactions/routing/routing.engine.js';

let t: TestContext;
let entityId: number;
let otherEntityId: number;
let admin: Member;
let adminToken: string;
let agents: Member[];
const ACCOUNT = 'ROUTING-PNID';
const acc = { phoneNumberId: ACCOUNT };

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, token = adminToken) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const send = async (from: string, text = 'hello') => {
  const res = await t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: whatsAppMessage(acc, { from, text }) });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const conversationOf = async (from: string) =>
  (
    await queryRows<{ id: number; assignment_status: string; assigned_employee_id: number | null; queue_id: number | null }>(
      t.database.db,
      sql`select id, assignment_status, assigned_employee_id, queue_id from conversation where external_chat_id = ${from}`,
    )
  )[0]!;

async function makeQueue(body: object) {
  const res = await api('POST', '/interactions/routing/queues', body);
  expect(res.statusCode).toBe(201);
  return res.json().id as number;
}
async function addMember(queueId: number, employeeId: number, extra: object = {}) {
  const res = await api('POST', `/interactions/routing/queues/${queueId}/members`, { employee_id: employeeId, ...extra });
  expect(res.statusCode).toBe(201);
  return res.json().id as number;
}

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());
beforeEach(async () => {
  await t.app.interactionsWorker.idle();
  await resetDatabase(t.database);
  entityId = (await makeEntity(t.database.db, 'Alpha')).id;
  otherEntityId = (await makeEntity(t.database.db, 'Beta')).id;
  await makeChannelAccount(t.database.db, { entityId, externalAccountId: ACCOUNT });
  admin = await makeMember(t.database.db, { entityId, codes: ['entity_channel_accounts.edit', 'cartera.seller_assignment'] });
  adminToken = await tokenFor(t.app, admin);
  agents = [];
  for (let i = 0; i < 3; i++) agents.push(await makeMember(t.database.db, { entityId, name: `Agent ${i}` }));
});

describe('routing', () => {
  it('hands conversations out round robin to available members under capacity, never to an offline member', async () => {
    const q = await makeQueue({ name: 'Sales', is_default: true, default_capacity: 2 });
    await addMember(q, agents[0]!.employeeId, { position: 0 });
    await addMember(q, agents[1]!.employeeId, { position: 1, is_available: false });
    await addMember(q, agents[2]!.employeeId, { position: 2 });
    const assigned = [];
    for (let i = 0; i < 5; i++) {
      await send(`5025557000${i}`);
      assigned.push((await conversationOf(`5025557000${i}`)).assigned_employee_id);
    }
    expect(assigned).toEqual([agents[0]!.employeeId, agents[2]!.employeeId, agents[0]!.employeeId, agents[2]!.employeeId, null]);
    expect(await conversationOf('50255570004')).toMatchObject({ assignment_status: 'queued', queue_id: q });
  });

  it('hands waiting conversations out oldest first when a member becomes available or frees capacity', async () => {
    const q = await makeQueue({ name: 'Support', is_default: true, default_capacity: 1 });
    const m0 = await addMember(q, agents[0]!.employeeId, { is_available: false });
    await send('50255571001');
    await send('50255571002');
    expect((await conversationOf('50255571001')).assignment_status).toBe('queued');
    const res = await api('PATCH', `/interactions/routing/queues/${q}/members/${m0}`, { is_available: true });
    expect(res.statusCode).toBe(200);
    expect(await conversationOf('50255571001')).toMatchObject({ assignment_status: 'assigned', assigned_employee_id: agents[0]!.employeeId });
    expect((await conversationOf('50255571002')).assignment_status).toBe('queued');
    const first = await conversationOf('50255571001');
    const un = await api('POST', `/interactions/conversations/${first.id}/unassign`);
    expect(un.statusCode).toBe(200);
    expect(await conversationOf('50255571002')).toMatchObject({ assignment_status: 'assigned', assigned_employee_id: agents[0]!.employeeId });
  });

  it('selects the queue of the first matching filter by priority', async () => {
    const general = await makeQueue({ name: 'General', is_default: true });
    const billing = await makeQueue({ name: 'Billing' });
    await addMember(general, agents[0]!.employeeId);
    await addMember(billing, agents[1]!.employeeId);
    const f = await api('POST', '/interactions/routing/filters', {
      name: 'Invoices',
      queue_id: billing,
      priority: 1,
      conditions: { message_text_contains: 'FACTURA', channel_type_codes: ['chatapp_api'] },
    });
    expect(f.statusCode).toBe(201);
    await api('POST', '/interactions/routing/filters', { name: 'Never', queue_id: general, priority: 0, conditions: { channel_type_codes: ['social_dm'] } });
    await send('50255572001', 'necesito mi factura');
    await send('50255572002', 'hola');
    expect((await conversationOf('50255572001')).assigned_employee_id).toBe(agents[1]!.employeeId);
    expect((await conversationOf('50255572002')).assigned_employee_id).toBe(agents[0]!.employeeId);
  });

  it("sends a conversation to the lead's seller when the seller is an available member", async () => {
    const q = await makeQueue({ name: 'Sales', is_default: true });
    await addMember(q, agents[0]!.employeeId);
    await addMember(q, agents[2]!.employeeId);
    const known = await makeContact(t.database.db, { entityId, channel: { type: 'whatsapp', identifier: '+50255573001' } });
    await assignLeadSeller(t.database.db, entityId, known.leadId, agents[2]!.employeeId);
    await send('50255573001');
    expect(await conversationOf('50255573001')).toMatchObject({ assignment_status: 'assigned', assigned_employee_id: agents[2]!.employeeId });
    const [conv] = await queryRows<{ contact_id: number }>(t.database.db, sql`select contact_id from conversation`);
    expect(conv!.contact_id).toBe(known.contactId);
  });

  it('never gives two concurrent routers the same round-robin slot', async () => {
    const q = await makeQueue({ name: 'Burst', is_default: true, default_capacity: 100 });
    for (const a of agents) await addMember(q, a.employeeId);
    // 30 queued conversations assigned by 30 concurrent transactions.
    await send('50255574000');
    const [base] = await queryRows<{ contact_id: number; lead_id: number; group_id: number; entity_channel_account_id: number }>(
      t.database.db,
      sql`select contact_id, lead_id, group_id, entity_channel_account_id from conversation limit 1`,
    );
    await t.database.executeSql(`update conversation set assignment_status = 'unassigned', assigned_employee_id = null`);
    await t.database.executeSql(`delete from routing_rr_cursor`);
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      const { rows } = await t.database.executeSql(
        `insert into conversation (entity_id, entity_channel_account_id, channel_type_code, external_chat_id, contact_id, lead_id, group_id) values ($1, $2, 'chatapp_api', $3, $4, $5, $6) returning id`,
        [entityId, base!.entity_channel_account_id, `chat-${i}`, base!.contact_id, base!.lead_id, base!.group_id],
      );
      ids.push(rows[0]!.id as number);
    }
    const results = await Promise.all(ids.map((id) => t.database.db.transaction((tx) => assignFromQueue(tx, entityId, q, id))));
    const counts = new Map<number, number>();
    for (const r of results) counts.set(r!.employeeId, (counts.get(r!.employeeId) ?? 0) + 1);
    expect([...counts.values()]).toEqual([10, 10, 10]);
  });

  it('guards the routing API with entity_channel_accounts.view and .edit and hides other entities', async () => {
    const viewer = await makeMember(t.database.db, { entityId, codes: ['entity_channel_accounts.view'] });
    const viewerToken = await tokenFor(t.app, viewer);
    const denied = await api('POST', '/interactions/routing/queues', { name: 'X' }, viewerToken);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: 'entity_channel_accounts.edit' });
    expect((await api('GET', '/interactions/routing/queues', undefined, viewerToken)).statusCode).toBe(200);
    const nobody = await tokenFor(t.app, await makeMember(t.database.db, { entityId }));
    expect((await api('GET', '/api/interactions/routing/queues', undefined, nobody)).json()).toMatchObject({
      code: 'permission_denied',
      permission: 'entity_channel_accounts.view',
    });
    expect((await t.app.inject({ method: 'GET', url: '/interactions/routing/queues' })).statusCode).toBe(401);
    const bad = await api('POST', '/interactions/routing/filters', { name: 'x', queue_id: 1, priority: -1, conditions: { channel_type_codes: ['fax'] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
    const otherAdmin = await makeMember(t.database.db, { entityId: otherEntityId, codes: ['entity_channel_accounts.edit'] });
    const otherQueue = (await api('POST', '/interactions/routing/queues', { name: 'Theirs' }, await tokenFor(t.app, otherAdmin))).json().id as number;
    const missing = await api('PATCH', `/interactions/routing/queues/${otherQueue}`, { name: 'Mine now' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('not_found');
    expect((await api('GET', '/interactions/routing/queues')).json().data).toEqual([]);
    const foreignMember = await api('POST', `/interactions/routing/queues/${await makeQueue({ name: 'Q' })}/members`, { employee_id: otherAdmin.employeeId });
    expect(foreignMember.json().code).toBe('invalid_employee');
  });

  it("refuses routing filters naming another entity's channel account or seller, or an inactive employee, naming each field", async () => {
    const q = await makeQueue({ name: 'Sales' });
    const own = (await queryRows<{ id: number }>(t.database.db, sql`select id from entity_channel_account where external_account_id = ${ACCOUNT}`))[0]!.id;
    const foreignAccount = await makeChannelAccount(t.database.db, { entityId: otherEntityId, externalAccountId: 'THEIRS-PNID' });
    const foreignSeller = await makeMember(t.database.db, { entityId: otherEntityId });
    const gone = await makeMember(t.database.db, { entityId });
    await t.database.executeSql('update employee set is_active = false where id = $1', [gone.employeeId]);
    const res = await api('POST', '/interactions/routing/filters', {
      name: 'Mixed',
      queue_id: q,
      conditions: { entity_channel_account_ids: [own, foreignAccount.id] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body/conditions/entity_channel_account_ids/1' }] });
    const sellers = await api('POST', '/interactions/routing/filters', {
      name: 'Sellers',
      queue_id: q,
      conditions: { lead_seller_employee_ids: [agents[0]!.employeeId, foreignSeller.employeeId, gone.employeeId] },
    });
    expect(sellers.statusCode).toBe(400);
    expect(sellers.json().errors.map((e: { field: string }) => e.field)).toEqual([
      '/body/conditions/lead_seller_employee_ids/1',
      '/body/conditions/lead_seller_employee_ids/2',
    ]);
    const ok = await api('POST', '/interactions/routing/filters', {
      name: 'Own',
      queue_id: q,
      conditions: { entity_channel_account_ids: [own], lead_seller_employee_ids: [agents[0]!.employeeId] },
    });
    expect(ok.statusCode).toBe(201);
    const patched = await api('PATCH', `/interactions/routing/filters/${ok.json().id}`, { conditions: { entity_channel_account_ids: [foreignAccount.id] } });
    expect(patched.statusCode).toBe(400);
    expect((await api('GET', '/interactions/routing/filters')).json().data).toEqual([
      expect.objectContaining({ id: ok.json().id, conditions: { entity_channel_account_ids: [own], lead_seller_employee_ids: [agents[0]!.employeeId] } }),
    ]);
  });
});
