/**
 * Service levels (issue 31) through the public surface: the business hours and SLA policy routes (permission
 * codes, validation, tenant isolation), the due instants and `sla_status` a conversation shows as customers
 * write, agents answer and the status moves, the policy chosen in its documented order, and the timers: a
 * breach fires within 2 s of its due instant, exactly once, and a reply before the due instant leaves the
 * old timer nothing to do. Messages carry platform timestamps in the past so that one-minute targets fall
 * due within seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { connectSocket, listen, queuedJobStates, waitFor, waitForConversation, type ReceivedEvent } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import { queryRows } from '../../../src/db/client.js';
import { addBusinessMinutes } from '../../../src/modules/interactions/service-levels/business-time.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
const API_KEY = 'sla-communications-key';
let sim: ProviderSimulator;
let t: TestContext;
let entityId: number;
let token: string;
let viewerToken: string;
let noCodeToken: string;
let otherToken: string;
let socket: { events: ReceivedEvent[]; socket: { disconnect(): void } };
let chatNo = 0;
const account = 'PN-SLA-1';

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, tk = token) =>
  t.app.inject({ method, url, headers: bearer(tk), ...(payload ? { payload } : {}) });
const detail = async (id: number): Promise<Row> => (await api('GET', `/interactions/conversations/${id}`)).json();
/** A customer's message whose platform time lies `agoSeconds` in the past. */
const inbound = async (chat: string, agoSeconds = 0, text = 'hola') => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: account }, { from: chat, text, timestamp: Math.floor(Date.now() / 1000) - agoSeconds }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const newConversation = async (agoSeconds = 0) => {
  const chat = `5025580${String(++chatNo).padStart(4, '0')}`;
  await inbound(chat, agoSeconds);
  return { chat, id: (await waitForConversation(t.app, token, chat)).id };
};
const reply = async (id: number) => {
  const res = await api('POST', `/interactions/conversations/${id}/messages/text`, { body: 'Con gusto le ayudo' });
  expect(res.statusCode, res.body).toBe(202);
};
const policy = async (body: object) => {
  const res = await api('POST', '/interactions/sla-policies', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Row>();
};
const clearPolicies = async () => {
  for (const p of (await api('GET', '/interactions/sla-policies')).json().data as Row[]) await api('DELETE', `/interactions/sla-policies/${p.id}`);
};
const slaEvents = (id: number, name: string) => socket.events.filter((e) => e.name === name && e.payload.conversation.id === id);
const breachRows = async (id: number) =>
  queryRows<{ metric: string; cycle: number }>(t.database.db, sql`select metric, cycle from conversation_sla_breach where conversation_id = ${id}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until every SLA timer job of the conversation has run to its end (the durable queue's job states). */
const timersDone = (id: number) =>
  waitFor(async () => {
    const states = await queuedJobStates(t.database.db, 'interactions.conversation.sla_timer', `sla:${id}:`);
    return states.length > 0 && states.every((s) => s === 'completed') ? states.length : undefined;
  }, 15_000);
const MIN = 60_000;

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: API_KEY });
  t = await createTestApp({ env: { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY }, startQueue: true });
  entityId = (await makeEntity(t.database.db, 'Service levels')).id;
  const other = (await makeEntity(t.database.db, 'Other company')).id;
  await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-SLA-1' });
  token = await tokenFor(
    t.app,
    await makeMember(t.database.db, { entityId, codes: ['sla_policies.edit', 'workflows.manage', 'entity_channel_accounts.edit'] }),
  );
  viewerToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId, codes: ['sla_policies.view'] }));
  noCodeToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId }));
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: other, codes: ['sla_policies.edit'] }));
  socket = await connectSocket(await listen(t.app), { token });
});
afterAll(async () => {
  socket?.socket.disconnect();
  await t?.close();
  await sim?.close();
});

describe('business hours and SLA policy routes', () => {
  it("creates the entity's hours in its time zone, one per entity and one override per queue, and validates them", async () => {
    const created = await api('POST', '/interactions/business-hours', { intervals: [{ day: 1, start: '08:00', end: '17:00' }], holidays: ['2026-12-25'] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ routing_queue_id: null, time_zone: 'America/Guatemala', holidays: ['2026-12-25'] });
    const again = await api('POST', '/interactions/business-hours', { intervals: [] });
    expect(again.statusCode).toBe(400);
    const badZone = await api('POST', '/interactions/business-hours', { time_zone: 'Mars/Olympus', intervals: [] });
    expect(badZone.statusCode).toBe(400);
    expect(badZone.json().errors[0].field).toBe('/body/time_zone');
    const empty = await api('POST', '/interactions/business-hours', { time_zone: 'UTC', intervals: [{ day: 1, start: '09:00', end: '09:00' }] });
    expect(empty.statusCode).toBe(400);
    const badClock = await api('POST', '/interactions/business-hours', { intervals: [{ day: 1, start: '25:00', end: '09:00' }] });
    expect(badClock.statusCode).toBe(400);
    const noQueue = await api('POST', '/interactions/business-hours', { routing_queue_id: 999_999, intervals: [] });
    expect(noQueue.statusCode).toBe(400);
    const queue = (await api('POST', '/interactions/routing/queues', { name: 'Madrid desk' })).json();
    expect(queue.id).toBeGreaterThan(0);
    const override = await api('POST', '/interactions/business-hours', {
      routing_queue_id: queue.id,
      time_zone: 'Europe/Madrid',
      intervals: [{ day: 5, start: '22:00', end: '02:00' }],
    });
    expect(override.statusCode, override.body).toBe(201);
    const patched = await api('PATCH', `/interactions/business-hours/${override.json().id}`, { holidays: ['2026-01-06', '2026-01-01', '2026-01-06'] });
    expect(patched.json().holidays).toEqual(['2026-01-01', '2026-01-06']);
    expect((await api('GET', '/interactions/business-hours', undefined, viewerToken)).json().data).toHaveLength(2);
    // Another entity sees none of them and cannot change them.
    expect((await api('GET', '/interactions/business-hours', undefined, otherToken)).json().data).toEqual([]);
    expect((await api('PATCH', `/interactions/business-hours/${override.json().id}`, { holidays: [] }, otherToken)).statusCode).toBe(404);
    expect((await api('DELETE', `/interactions/business-hours/${override.json().id}`, undefined, otherToken)).statusCode).toBe(404);
    expect((await api('DELETE', `/interactions/business-hours/${override.json().id}`)).statusCode).toBe(204);
    expect((await api('DELETE', `/interactions/business-hours/${created.json().id}`)).statusCode).toBe(204);
  });

  it('guards the routes with sla_policies.view and sla_policies.edit', async () => {
    expect((await api('GET', '/interactions/sla-policies', undefined, noCodeToken)).statusCode).toBe(403);
    expect((await api('GET', '/interactions/business-hours', undefined, noCodeToken)).statusCode).toBe(403);
    expect((await api('GET', '/interactions/sla-policies', undefined, viewerToken)).statusCode).toBe(200);
    expect((await api('POST', '/interactions/sla-policies', { name: 'x' }, viewerToken)).statusCode).toBe(403);
    expect((await api('POST', '/interactions/business-hours', { intervals: [] }, viewerToken)).statusCode).toBe(403);
  });

  it('creates, reads, changes and deletes policies; a policy covers at most one scope; other entities see nothing', async () => {
    const p = await policy({ name: 'Default', first_response_minutes: 15, time_basis: 'calendar' });
    expect(p).toMatchObject({
      name: 'Default',
      position: 0,
      lead_id: null,
      routing_queue_id: null,
      channel_type_code: null,
      first_response_minutes: 15,
      next_response_minutes: null,
      resolution_minutes: null,
      time_basis: 'calendar',
      at_risk_share: 0.8,
      pause_on_pending: true,
      pause_on_snoozed: true,
      is_active: true,
    });
    const two = await api('POST', '/interactions/sla-policies', { name: 'Both', channel_type_code: 'chatapp_api', lead_id: 1 });
    expect(two.statusCode).toBe(400);
    expect((await api('PATCH', `/interactions/sla-policies/${p.id}`, { routing_queue_id: 999_999 })).statusCode).toBe(400);
    expect((await api('POST', '/interactions/sla-policies', { name: 'Lead', lead_id: 999_999 })).statusCode).toBe(400);
    expect((await api('POST', '/interactions/sla-policies', { name: 'Share', at_risk_share: 1 })).statusCode).toBe(400);
    const patched = await api('PATCH', `/interactions/sla-policies/${p.id}`, { resolution_minutes: 120, pause_on_pending: false });
    expect(patched.json()).toMatchObject({ resolution_minutes: 120, pause_on_pending: false });
    expect((await api('GET', `/interactions/sla-policies/${p.id}`, undefined, viewerToken)).json().name).toBe('Default');
    expect((await api('GET', `/interactions/sla-policies/${p.id}`, undefined, otherToken)).statusCode).toBe(404);
    expect((await api('GET', '/interactions/sla-policies', undefined, otherToken)).json().data).toEqual([]);
    expect((await api('DELETE', `/interactions/sla-policies/${p.id}`, undefined, otherToken)).statusCode).toBe(404);
    expect((await api('DELETE', `/interactions/sla-policies/${p.id}`)).statusCode).toBe(204);
    expect((await api('GET', `/interactions/sla-policies/${p.id}`)).statusCode).toBe(404);
  });
});

describe('due instants and sla_status', () => {
  it('shows nothing without a policy', async () => {
    await clearPolicies();
    const { id } = await newConversation();
    expect(await detail(id)).toMatchObject({ first_response_due_at: null, next_response_due_at: null, resolution_due_at: null, sla_status: null });
  });

  it('runs first response, next response and resolution in calendar minutes; pending pauses them; resolving stops them', async () => {
    await clearPolicies();
    await policy({ name: 'Calendar', first_response_minutes: 60, next_response_minutes: 30, resolution_minutes: 240, time_basis: 'calendar' });
    const { id, chat } = await newConversation();
    const opened = await detail(id);
    const at = Date.parse(opened.last_message_at);
    expect(Date.parse(opened.first_response_due_at)).toBe(at + 60 * MIN);
    expect(Date.parse(opened.resolution_due_at)).toBe(at + 240 * MIN);
    expect(opened).toMatchObject({ next_response_due_at: null, sla_status: 'on_track' });
    // The list shows the same fields.
    const listed = ((await api('GET', '/interactions/conversations')).json().data as Row[]).find((c) => c.id === id)!;
    expect(listed).toMatchObject({ first_response_due_at: opened.first_response_due_at, sla_status: 'on_track' });

    await reply(id);
    expect(await detail(id)).toMatchObject({ first_response_due_at: null, next_response_due_at: null, resolution_due_at: opened.resolution_due_at });
    await inbound(chat, 0, '¿y el envío?');
    const waiting = await detail(id);
    // From the customer's message (whole seconds of platform time), which may be older than the agent's.
    expect(Math.abs(Date.parse(waiting.next_response_due_at) - (Date.now() + 30 * MIN))).toBeLessThan(2000);
    // A second message before the answer does not move the next response's due instant.
    await inbound(chat, 0, '¿hola?');
    expect((await detail(id)).next_response_due_at).toBe(waiting.next_response_due_at);

    const pending = (await api('POST', `/interactions/conversations/${id}/pending`)).json();
    expect(pending).toMatchObject({ status: 'pending', next_response_due_at: null, resolution_due_at: null, sla_status: 'on_track' });
    await sleep(1100);
    const reopened = (await api('POST', `/interactions/conversations/${id}/reopen`)).json();
    // Paused for over a second: both instants moved later by the pause.
    expect(Date.parse(reopened.next_response_due_at) - Date.parse(waiting.next_response_due_at)).toBeGreaterThanOrEqual(1000);
    expect(Date.parse(reopened.resolution_due_at) - Date.parse(opened.resolution_due_at)).toBeGreaterThanOrEqual(1000);

    const resolved = (await api('POST', `/interactions/conversations/${id}/resolve`)).json();
    expect(resolved).toMatchObject({ first_response_due_at: null, next_response_due_at: null, resolution_due_at: null, sla_status: 'on_track' });
    // The customer writes again: a new cycle; an agent answered before, so the next response is awaited.
    await inbound(chat, 0, 'otra consulta');
    const again = await detail(id);
    expect(again.next_response_due_at).not.toBeNull();
    expect(again.first_response_due_at).toBeNull();
    expect(Date.parse(again.resolution_due_at)).toBe(Date.parse(again.last_message_at) + 240 * MIN);
  });

  it('keeps the clocks running while snoozed when the policy does not pause them', async () => {
    await clearPolicies();
    await policy({ name: 'Runs', first_response_minutes: 60, time_basis: 'calendar', pause_on_snoozed: false });
    const { id } = await newConversation();
    const due = (await detail(id)).first_response_due_at;
    const snoozed = (await api('POST', `/interactions/conversations/${id}/snooze`, { until: new Date(Date.now() + 3_600_000).toISOString() })).json();
    expect(snoozed.first_response_due_at).toBe(due);
  });

  it('counts business minutes in the business hours: a holiday today moves the due instant to tomorrow', async () => {
    await clearPolicies();
    const today = new Date().toISOString().slice(0, 10);
    const allWeek = [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, start: '00:00', end: '24:00' }));
    const hours = await api('POST', '/interactions/business-hours', { time_zone: 'UTC', intervals: allWeek, holidays: [today] });
    expect(hours.statusCode, hours.body).toBe(201);
    await policy({ name: 'Business', first_response_minutes: 90 });
    const { id } = await newConversation();
    const c = await detail(id);
    const expected = addBusinessMinutes({ timeZone: 'UTC', intervals: allWeek, holidays: [today] }, new Date(c.last_message_at), 90)!;
    expect(c.first_response_due_at).toBe(expected.toISOString());
    expect(c.first_response_due_at.startsWith(today)).toBe(false);
    await api('DELETE', `/interactions/business-hours/${hours.json().id}`);
  });

  it('chooses the policy naming the lead, then the routing queue, then the channel, then the default', async () => {
    await clearPolicies();
    await policy({ name: 'Default', first_response_minutes: 40, time_basis: 'calendar' });
    const byChannel = await policy({ name: 'Channel', channel_type_code: 'chatapp_api', first_response_minutes: 30, time_basis: 'calendar' });
    const due = async (id: number) => (Date.parse((await detail(id)).first_response_due_at) - Date.parse((await detail(id)).last_message_at)) / MIN;
    const first = await newConversation();
    expect(await due(first.id)).toBe(30);
    await api('PATCH', `/interactions/sla-policies/${byChannel.id}`, { is_active: false });
    const second = await newConversation();
    expect(await due(second.id)).toBe(40);
    const leadId = (await detail(second.id)).lead_id as number;
    await policy({ name: 'Lead', lead_id: leadId, first_response_minutes: 10, time_basis: 'calendar' });
    await api('PATCH', `/interactions/sla-policies/${byChannel.id}`, { is_active: true });
    // A new cycle chooses again: the lead's policy comes first.
    await api('POST', `/interactions/conversations/${second.id}/resolve`);
    await inbound(second.chat, 0, 'vuelvo');
    expect(await due(second.id)).toBe(10);
  });
});

describe('SLA timers', () => {
  it('records a breach within 2 s of its due instant, exactly once, after the at-risk warning', async () => {
    await clearPolicies();
    await policy({ name: 'Fast', first_response_minutes: 1, time_basis: 'calendar', at_risk_share: 0.5 });
    // The customer wrote 57 s ago (a late delivery): the first response is due in about 3 s.
    const { id } = await newConversation(57);
    const due = Date.parse((await detail(id)).first_response_due_at);
    expect(due).toBeGreaterThan(Date.now());
    await waitFor(() => slaEvents(id, 'interaction.conversation.sla_at_risk').length > 0, 5000);
    const [breach] = await waitFor(() => {
      const got = slaEvents(id, 'interaction.conversation.sla_breached');
      return got.length > 0 && got;
    }, 10_000);
    const heard = Date.now();
    expect(heard - due).toBeLessThan(2000);
    expect(breach!.payload).toMatchObject({ metric: 'first_response', due_at: new Date(due).toISOString() });
    expect(breach!.payload.conversation.sla_status).toBe('breached');
    // Every timer has run: no second warning or breach can come.
    await timersDone(id);
    expect(slaEvents(id, 'interaction.conversation.sla_breached')).toHaveLength(1);
    expect(slaEvents(id, 'interaction.conversation.sla_at_risk')).toHaveLength(1);
    expect(await breachRows(id)).toEqual([{ metric: 'first_response', cycle: expect.any(Number) }]);
    // The conversation event log, which the reports read: the cycle's policy and the one breach.
    const logged = await queryRows<{ kind: string; metric: string | null }>(
      t.database.db,
      sql`select kind, data->>'metric' as metric from conversation_event where conversation_id = ${id} and kind like 'sla%' order by id`,
    );
    expect(logged).toEqual([
      { kind: 'sla_policy_applied', metric: null },
      { kind: 'sla_breached', metric: 'first_response' },
    ]);
    // A late answer keeps the cycle breached.
    await reply(id);
    expect(await detail(id)).toMatchObject({ first_response_due_at: null, sla_status: 'breached' });
  });

  it('a reply before the due instant leaves the old timer nothing to do', async () => {
    await clearPolicies();
    await policy({ name: 'Fast', first_response_minutes: 1, next_response_minutes: 1, time_basis: 'calendar' });
    const { id, chat } = await newConversation(58);
    const firstDue = Date.parse((await detail(id)).first_response_due_at);
    await reply(id);
    // The next response's clock starts from a message written 58 s ago too, and is answered in time.
    await inbound(chat, 58, '¿sigue ahí?');
    const nextDue = Date.parse((await detail(id)).next_response_due_at);
    await reply(id);
    // The timers of both due instants have run, and found the responses given.
    expect(await timersDone(id)).toBeGreaterThanOrEqual(2);
    expect(Date.now()).toBeGreaterThanOrEqual(Math.max(firstDue, nextDue));
    expect(slaEvents(id, 'interaction.conversation.sla_breached')).toHaveLength(0);
    expect(await breachRows(id)).toEqual([]);
    expect((await detail(id)).sla_status).toBe('on_track');
  });
});

describe('workflow triggers and presets', () => {
  it('a missed response target starts conversation.sla_breached and conversation.no_reply workflows, once each', async () => {
    await clearPolicies();
    // Business minutes without business hours count around the clock.
    await policy({ name: 'Business, around the clock', first_response_minutes: 1 });
    const create = async (body: object) => {
      const res = await api('POST', '/api/workflows', body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<Row>();
    };
    // The card proposes its step: created without steps, the workflow takes them with the values filled in.
    const note = await create({ name: 'No reply note', preset_code: 'sla_no_reply_note', preset_values: { minutes: '1' } });
    expect(note.trigger).toMatchObject({ trigger_type: 'conversation.no_reply', preset_code: 'sla_no_reply_note' });
    expect(note.steps).toEqual([{ key: 'note', action: 'add_note', text: expect.stringContaining('{{trigger.sla_target_minutes}}') }]);
    const otherTarget = await create({ name: 'Other target', preset_code: 'sla_no_reply_note', preset_values: { minutes: '5' } });
    const breached = await create({
      name: 'Any breach',
      preset_code: 'sla_breached',
      steps: [{ key: 'flag', action: 'set_follow_up', follow_up: true }],
    });
    const missing = await api('POST', '/api/workflows', { name: 'No queue', preset_code: 'sla_no_reply_reassign', preset_values: { minutes: '1' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('/body/preset_values/queue_id');
    const cards = (await api('GET', '/api/workflows/trigger-presets')).json().data as Row[];
    expect(cards.find((c) => c.code === 'sla_no_reply_webhook')).toMatchObject({
      event: 'conversation.no_reply',
      steps: [{ action: 'webhook', url: '{url}' }],
    });

    const { id } = await newConversation(58);
    const executions = (wf: number) =>
      waitFor(async () => {
        const rows = (await api('GET', `/api/workflows/${wf}/executions`)).json().data as Row[];
        return rows.length > 0 && rows.every((r) => r.status !== 'running') && rows;
      }, 15_000);
    const [n] = await executions(note.id);
    expect(n).toMatchObject({
      status: 'succeeded',
      context_json: {
        trigger: { type: 'conversation.no_reply', conversation_id: id, sla_metric: 'first_response', sla_target_minutes: 1, sla_time_basis: 'business' },
      },
    });
    const [b] = await executions(breached.id);
    expect(b!.context_json.trigger).toMatchObject({ type: 'conversation.sla_breached', conversation_id: id, sla_metric: 'first_response' });
    await sleep(1000);
    expect((await api('GET', `/api/workflows/${note.id}/executions`)).json().data).toHaveLength(1);
    expect((await api('GET', `/api/workflows/${breached.id}/executions`)).json().data).toHaveLength(1);
    expect((await api('GET', `/api/workflows/${otherTarget.id}/executions`)).json().data).toHaveLength(0);
    const c = await detail(id);
    expect(c.follow_up).toBe(true);
    const notes = (await api('GET', `/interactions/conversations/${id}/notes`)).json().data as { body: string }[];
    expect(notes.map((n) => n.body)).toContain('Sin respuesta dentro del SLA (1 minutos hábiles)');
    for (const wf of [note, otherTarget, breached]) await api('DELETE', `/api/workflows/${wf.id}`);
  });
});
