/**
 * `erp.recent_invoices.count` / `.total` (SPEC "Filter engine" examples) end to end: the ERP simulator
 * holds invoices of a group's client; an inbound-message workflow filtered on `count gt 0` starts for
 * that contact and not for one whose group has no client; manual runs carry the fields; with a slow
 * ERP the run still starts, within the bound, without them.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { makeGroup, makeLead } from '../../helpers/records-factories.js';
import { waitFor } from '../../helpers/interactions.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';
import { todayIn } from '../../../src/modules/invoices/invoice-lines.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
const API_KEY = 'sim-key-erp-fields';
const HIT = '50255507001';
const MISS = '50255507002';
// Generous: a loaded machine must not turn the simulator's ordinary answer into a timeout.
const TIMEOUT_MS = 3_000;
let t: TestContext;
let comms: ProviderSimulator;
let erp: ErpSimulator;
let token: string;
let entityId: number;
let filteredWorkflow: number;

const today = todayIn('America/Guatemala');
const dayOffset = (n: number) => new Date(Date.parse(today) - n * 86_400_000).toISOString().slice(0, 10);
const invoice = (id: string, clientId: string, offset: number, unitPrice: number, entity = 951) => ({
  id,
  number: `F-${id}`,
  entityId: entity,
  clientId,
  date: dayOffset(offset),
  issuedAt: `${dayOffset(offset)}T15:00:00.000Z`,
  currencyCode: 'GTQ',
  status: 'issued' as const,
  lines: [{ id: `l-${id}`, quantity: 2, unitPrice, itemId: null, bundleId: null, serial: null, lot: null }],
});

beforeAll(async () => {
  comms = await startProviderSimulator({ apiKey: API_KEY });
  erp = await startTestErp();
  t = await createTestApp({
    env: erpEnv(erp, { COMMUNICATIONS_BASE_URL: comms.url, COMMUNICATIONS_API_KEY: API_KEY, WORKFLOWS_ERP_FIELDS_TIMEOUT_MS: String(TIMEOUT_MS) }),
    startQueue: true,
  });
  const db = t.database.db;
  entityId = (await makeEntity(db, 'ERP fields')).id;
  await linkEntity(db, erp, entityId, 951);
  await makeChannelAccount(db, { entityId, externalAccountId: 'PN-ERPF' });
  const member = await makeMember(db, {
    entityId,
    codes: ['workflows.manage', 'workflows.execute', 'workflows.view', 'entity_channel_accounts.edit', 'leads.create', 'groups.create'],
  });
  erpUserFor(erp, member, [951]);
  const login = await loginWithErp(t.app, { email: member.email, password: member.password, entityId });
  expect(login.status).toBe(200);
  token = login.token;
  erp.data.invoices.push(
    invoice('1', 'C-1', 0, 50), // 100
    invoice('2', 'C-1', 3, 12.25), // 24.5
    invoice('3', 'C-1', 45, 1000), // outside the 30 days
    invoice('4', 'C-1', 1, 500, 952), // another ERP entity
    invoice('5', 'C-9', 2, 10),
    invoice('6', 'C-7', 2, 10),
  );
});
afterAll(async () => {
  await t?.close();
  await comms?.close();
  await erp?.close();
});

const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
const get = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: bearer(token) })).json();
const createWorkflow = async (body: object) => {
  const res = await post('/api/workflows', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
};
const inbound = async (from: string, text: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: 'PN-ERPF' }, { from, name: `Sender ${from}`, text }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const finished = async (id: number, n = 1) =>
  waitFor(async () => {
    const rows = (await get(`/api/workflows/${id}/executions`)).data as Row[];
    return rows.length >= n && rows.every((r) => r.status !== 'running') ? rows : undefined;
  }, 15_000);
/** A condition on the ERP fields, then a follow-up: a workflow whose steps name `erp.*`. */
const erpSteps = [
  { key: 'c', action: 'condition', filters: [{ field: 'erp.recent_invoices.count', operator: 'is_not_empty' }], then: 'f', else: null },
  { key: 'f', action: 'set_follow_up', follow_up: true },
];
const conversation = async (chat: string) => ((await get(`/interactions/conversations?q=${chat}`)).data as Row[]).find((c) => c.external_chat_id === chat)!;

describe('registry', () => {
  it('lists the fields with numeric operators for message.inbound, and for conditions of manual runs', async () => {
    const events = (await get('/api/workflows/trigger-fields')).data as Row[];
    const inboundFields = events.find((e) => e.event === 'message.inbound')!.fields as Row[];
    for (const field of ['erp.recent_invoices.count', 'erp.recent_invoices.total'])
      expect(inboundFields.find((f) => f.field === field)).toMatchObject({
        type: 'number',
        operators: expect.arrayContaining(['gt', 'gte', 'lt', 'lte', 'is_empty']),
      });
    const manual = events.find((e) => e.event === 'manual')!.fields as Row[];
    expect(manual.map((f) => [f.field, f.conditionsOnly])).toEqual([
      ['erp.recent_invoices.count', true],
      ['erp.recent_invoices.total', true],
      ['labels', true],
    ]);
    const refused = await post('/api/workflows', {
      name: 'Bad',
      trigger_type: 'message.inbound',
      filters: [{ field: 'erp.recent_invoices.count', operator: 'gt', value: 'many' }],
      steps: [{ key: 'f', action: 'set_follow_up', follow_up: true }],
    });
    expect(refused.statusCode).toBe(400);
    const countFilter = [{ field: 'erp.recent_invoices.count', operator: 'gt', value: 0 }];
    const follow = { key: 'f', action: 'set_follow_up', follow_up: true };
    const manualFiltered = await post('/api/workflows', { name: 'Manual filter', trigger_type: 'manual', filters: countFilter, steps: [follow] });
    expect(manualFiltered.statusCode).toBe(400);
    const manualCondition = await post('/api/workflows', {
      name: 'Manual condition',
      trigger_type: 'manual',
      steps: [{ key: 'c', action: 'condition', filters: countFilter, then: 'f', else: null }, follow],
    });
    expect(manualCondition.statusCode, manualCondition.body).toBe(201);
  });
});

describe('message.inbound', () => {
  it('starts for a contact whose group has a client with recent invoices, and not otherwise', async () => {
    // Contacts first (no workflow yet, so no ERP read); then HIT's lead becomes ERP client C-1.
    await inbound(HIT, 'hola');
    await inbound(MISS, 'hola');
    const hit = await conversation(HIT);
    await t.database.db.execute(sql`update lead set erp_id = 'C-1' where id = ${hit.lead_id as number}`);
    const id = await createWorkflow({
      name: 'Clientes con compras',
      trigger_type: 'message.inbound',
      filters: [{ field: 'erp.recent_invoices.count', operator: 'gt', value: 0 }],
      steps: [{ key: 'f', action: 'set_follow_up', follow_up: true }],
    });
    await inbound(MISS, 'otra vez');
    await inbound(HIT, 'otra vez');
    filteredWorkflow = id;
    const runs = await finished(id);
    expect(runs).toHaveLength(1);
    const full = await get(`/api/workflows/${id}/executions/${runs[0]!.id}`);
    expect(full.context_json.trigger.contact_id).toBe(hit.contact_id);
    expect(full.context_json.erp).toEqual({ recent_invoices: { count: 2, total: 124.5 } });
    expect((await conversation(HIT)).follow_up).toBe(true);
    expect((await conversation(MISS)).follow_up).toBe(false);
  });
});

describe('message.inbound without erp filters', () => {
  it('reads the fields only for workflows whose steps name them', async () => {
    expect(
      (await t.app.inject({ method: 'PATCH', url: `/api/workflows/${filteredWorkflow}`, headers: bearer(token), payload: { enabled: false } })).statusCode,
    ).toBe(200);
    const plain = await createWorkflow({ name: 'Cualquiera', preset_code: 'msg_any', steps: [{ key: 'f', action: 'set_follow_up', follow_up: true }] });
    await inbound(HIT, 'sin erp');
    const [plainRun] = await finished(plain);
    // HIT's group answer is cached: had the ERP fields been read, they would be in the context.
    expect((await get(`/api/workflows/${plain}/executions/${plainRun!.id}`)).context_json).not.toHaveProperty('erp');
    expect((await t.app.inject({ method: 'PATCH', url: `/api/workflows/${plain}`, headers: bearer(token), payload: { enabled: false } })).statusCode).toBe(200);

    const conditional = await createWorkflow({
      name: 'Condición',
      preset_code: 'msg_any',
      steps: [
        { key: 'c', action: 'condition', filters: [{ field: 'erp.recent_invoices.total', operator: 'gte', value: 100 }], then: 'f', else: null },
        { key: 'f', action: 'set_follow_up', follow_up: true },
      ],
    });
    await inbound(HIT, 'con condición');
    const [run] = await finished(conditional);
    const full = await get(`/api/workflows/${conditional}/executions/${run!.id}`);
    expect(full.context_json.erp).toEqual({ recent_invoices: { count: 2, total: 124.5 } });
    expect((full.steps as Row[]).map((s) => s.step_key)).toEqual(['c', 'f']);
  });
});

describe('manual', () => {
  it('carries the fields for a group with a client, none for a group without', async () => {
    const id = await createWorkflow({ name: 'A mano', preset_code: 'manual', steps: erpSteps });
    const db = t.database.db;
    const withClient = await makeGroup(db, entityId);
    await makeLead(db, { entityId, groupId: withClient.id, erpId: 'C-9' });
    const withoutClient = await makeGroup(db, entityId);
    await makeLead(db, { entityId, groupId: withoutClient.id });
    const a = await post(`/api/workflows/${id}/execute`, { group_id: withClient.id });
    expect(a.statusCode, a.body).toBe(202);
    expect(a.json().context_json.erp).toEqual({ recent_invoices: { count: 1, total: 20 } });
    const b = await post(`/api/workflows/${id}/execute`, { group_id: withoutClient.id });
    expect(b.statusCode, b.body).toBe(202);
    expect(b.json().context_json).not.toHaveProperty('erp');
    // A workflow whose steps do not name the fields does not ask the ERP.
    const plain = await createWorkflow({ name: 'Sin ERP', preset_code: 'manual', steps: [{ key: 'f', action: 'set_follow_up', follow_up: true }] });
    const fresh = await makeGroup(db, entityId);
    await makeLead(db, { entityId, groupId: fresh.id, erpId: 'C-8' });
    const before = erp.controls.counts['gql:invoiceDays'] ?? 0;
    const c = await post(`/api/workflows/${plain}/execute`, { group_id: fresh.id });
    expect(c.statusCode, c.body).toBe(202);
    expect(c.json().context_json).not.toHaveProperty('erp');
    expect(erp.controls.counts['gql:invoiceDays'] ?? 0).toBe(before);
  });

  it('starts without the fields when the ERP is slower than the bound', async () => {
    const id = await createWorkflow({ name: 'Lento', preset_code: 'manual', steps: erpSteps });
    const db = t.database.db;
    const group = await makeGroup(db, entityId);
    await makeLead(db, { entityId, groupId: group.id, erpId: 'C-7' });
    erp.controls.latencyMs = 10_000;
    try {
      const started = Date.now();
      const res = await post(`/api/workflows/${id}/execute`, { group_id: group.id });
      const elapsed = Date.now() - started;
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().context_json).not.toHaveProperty('erp');
      // The run waited for the bound (3 s), not for the ERP's answer (10 s away).
      expect(elapsed).toBeLessThan(8_000);
    } finally {
      erp.controls.latencyMs = 0;
    }
  });
});
