/**
 * Executions end to end, over HTTP, the queue and the simulators: a WhatsApp message posted to the
 * webhook runs a keyword workflow whose template reply reaches the communications simulator; manual runs
 * build SPEC's context; a CRM event starts a workflow that assigns a seller; conditions and step visits;
 * webhook steps against a real HTTPS server (and refused addresses); loop protection; scheduled
 * workflows across daylight-saving changes with an injected clock, once per slot.
 */
import { sql } from 'drizzle-orm';
import { createServer, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { waitFor } from '../../helpers/interactions.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
const API_KEY = 'sim-key-workflows';
const PHONE = '50255501234';
let t: TestContext;
let sim: ProviderSimulator;
let receiver: HttpsReceiver;
let token: string;
let employeeId: number;
let sellerId: number;
let entityId: number;
let clock = new Date();

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: API_KEY });
  receiver = await startHttpsReceiver();
  t = await createTestApp({
    env: {
      COMMUNICATIONS_BASE_URL: sim.url,
      COMMUNICATIONS_API_KEY: API_KEY,
      WORKFLOWS_MAX_DEPTH: '3',
      WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
      WORKFLOWS_WEBHOOK_CA_FILE: receiver.caFile,
    },
    startQueue: true,
    now: () => clock,
  });
  entityId = (await makeEntity(t.database.db, 'Automations')).id;
  // Scheduled workflows without a zone run in the entity's; this one observes daylight saving.
  await t.database.db.execute(sql`update entity set time_zone = 'America/New_York' where id = ${entityId}`);
  await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-WF' });
  const member = await makeMember(t.database.db, {
    entityId,
    codes: ['workflows.manage', 'workflows.execute', 'entity_channel_accounts.edit', 'leads.create', 'groups.create', 'lead_assignments.manage'],
  });
  employeeId = member.employeeId;
  sellerId = (await makeMember(t.database.db, { entityId })).employeeId;
  token = await tokenFor(t.app, member);
  sim.setTemplateReview('APPROVED');
  const template = {
    name: 'price_list',
    language: 'es',
    category: 'utility',
    components: [{ type: 'BODY', text: 'Hola {{1}}, le enviamos la lista de precios.', example: { body_text: [['Ana']] } }],
  };
  expect((await post('/interactions/templates', template)).statusCode).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
  await receiver?.close();
});

const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, headers: { ...bearer(token), ...headers }, payload });
const get = async (url: string) => (await t.app.inject({ method: 'GET', url, headers: bearer(token) })).json();
const createWorkflow = async (body: object) => {
  const res = await post('/api/workflows', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
};
const executionsOf = async (id: number) => (await get(`/api/workflows/${id}/executions`)).data as Row[];
const finished = async (id: number, n = 1) =>
  waitFor(async () => {
    const rows = await executionsOf(id);
    return rows.length >= n && rows.every((r) => r.status !== 'running') ? rows : undefined;
  }, 15_000);
const detail = async (workflowId: number, executionId: number) => get(`/api/workflows/${workflowId}/executions/${executionId}`) as Promise<Row>;
const inbound = async (text: string, opts: { from?: string; name?: string } = {}) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: 'PN-WF' }, { from: opts.from ?? PHONE, name: opts.name ?? 'Ana Pérez', text }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const conversation = async (chat = PHONE) => ((await get(`/interactions/conversations?q=${chat}`)).data as Row[]).find((c) => c.external_chat_id === chat)!;

describe('message.inbound', () => {
  it('runs the keyword workflow, whose template reply reaches the communications service', async () => {
    const id = await createWorkflow({
      name: 'Lista de precios',
      preset_code: 'msg_keyword',
      preset_values: { keyword: 'precio' },
      steps: [
        {
          key: 'reply',
          action: 'send_template',
          template: {
            name: 'price_list',
            language: { code: 'es' },
            components: [{ type: 'body', parameters: [{ type: 'text', text: '{{trigger.sender_name}}' }] }],
          },
        },
      ],
    });
    sim.reset();
    await inbound('hola');
    await inbound('¿Cuál es el PRECIO del plan?');
    const [delivery] = await sim.waitForDeliveries(1);
    expect(delivery!.body).toMatchObject({
      messaging_product: 'whatsapp',
      type: 'template',
      template: { name: 'price_list', language: { code: 'es' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana Pérez' }] }] },
    });
    const [run] = await finished(id);
    expect(run).toMatchObject({ status: 'succeeded', trigger_type: 'message.inbound', depth: 0 });
    expect((await executionsOf(id)).length).toBe(1); // "hola" did not match
    const full = await detail(id, run!.id);
    expect(full.context_json.trigger).toMatchObject({
      type: 'message.inbound',
      entity_id: entityId,
      message_text: '¿Cuál es el PRECIO del plan?',
      sender_name: 'Ana Pérez',
      sender_identifier: `+${PHONE}`,
      channel_type_code: 'chatapp_api',
    });
    expect(Object.keys(full.context_json.trigger).sort()).toEqual(
      [
        'type',
        'entity_id',
        'contact_id',
        'lead_id',
        'group_id',
        'channel_type_code',
        'assignment_status',
        'assigned_employee_ids',
        'sender_identifier',
        'sender_name',
        'message_text',
        'message_id',
        'external_chat_id',
        'entity_channel_account_id',
        'is_first_message',
        'occurred_at',
      ].sort(),
    );
    expect(full.steps).toMatchObject([
      { step_key: 'reply', visit: 1, action: 'send_template', status: 'succeeded', attempts: 1, result: { status: 'pending' } },
    ]);
    await t.app.inject({ method: 'PATCH', url: `/api/workflows/${id}`, headers: bearer(token), payload: { enabled: false } });
  });

  it('runs a version that was current when the execution started, and conditions count step visits', async () => {
    const id = await createWorkflow({
      name: 'Ciclo',
      trigger_type: 'message.inbound',
      filters: [{ field: 'trigger.message_text', operator: 'contains', value: 'ciclo' }],
      steps: [
        { key: 'note', action: 'add_note', text: 'visita {{workflow.step_visits.note}}' },
        { key: 'again', action: 'condition', filters: [{ field: 'workflow.step_visits.note', operator: 'lt', value: 3 }], then: 'note', else: null },
      ],
    });
    await inbound('un ciclo por favor');
    const [run] = await finished(id);
    expect(run!.status).toBe('succeeded');
    const full = await detail(id, run!.id);
    expect(full.steps.map((s: Row) => `${s.step_key}#${s.visit}`)).toEqual(['note#1', 'again#1', 'note#2', 'again#2', 'note#3', 'again#3']);
    expect(full.context_json.workflow.step_visits).toEqual({ note: 3, again: 3 });
    // Each visit of the add_note step writes its own note, authored by the workflow.
    const notes = (await get(`/interactions/conversations/${(await conversation()).id}/notes`)).data as Row[];
    expect(notes.map((n) => n.body)).toEqual(['visita 3', 'visita 2', 'visita 1']);
    expect(notes.every((n) => n.author_workflow_id === id && n.author_employee_id === null)).toBe(true);
    await t.app.inject({ method: 'PATCH', url: `/api/workflows/${id}`, headers: bearer(token), payload: { enabled: false } });
  });
});

describe('manual', () => {
  it('builds SPEC’s manual context from the records named, once per Idempotency-Key', async () => {
    const { contact_id: contactId, lead_id: leadId, group_id: groupId } = await conversation();
    const id = await createWorkflow({ name: 'A mano', preset_code: 'manual', steps: [{ key: 'follow', action: 'set_follow_up', follow_up: true }] });
    clock = new Date();
    const res = await post(`/api/workflows/${id}/execute`, { contact_id: contactId }, { 'idempotency-key': 'run-1' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().context_json.trigger).toEqual({
      type: 'manual',
      entity_id: entityId,
      triggered_by_employee_id: employeeId,
      triggered_by_user_id: expect.any(Number),
      contact_id: contactId,
      lead_id: leadId,
      group_id: groupId,
      triggered_at: clock.toISOString(),
    });
    expect((await post(`/api/workflows/${id}/execute`, { contact_id: contactId }, { 'idempotency-key': 'run-1' })).json().code).toBe('execution_exists');
    const [run] = await finished(id);
    expect(run!.status).toBe('succeeded');
    expect((await conversation()).follow_up).toBe(true);
    expect((await post(`/api/workflows/${id}/execute`, { contact_id: 999_999 })).statusCode).toBe(400);
  });
});

describe('CRM events', () => {
  it('lead.created runs a workflow that assigns a seller', async () => {
    const id = await createWorkflow({
      name: 'Vendedor',
      preset_code: 'crm_lead_created',
      steps: [{ key: 'seller', action: 'assign_seller', employee_id: sellerId }],
    });
    const group = await post('/groups', { name: 'Nuevos' });
    const created = await post('/leads', { name: 'Empresa Nueva', group_id: group.json().id });
    expect(created.statusCode, created.body).toBe(201);
    const [run] = await finished(id);
    expect(run).toMatchObject({
      status: 'succeeded',
      context_json: { trigger: { type: 'lead.created', lead_id: created.json().id, created_by_employee_id: employeeId } },
    });
    const assignments = await get(`/lead-assignments?lead_id=${created.json().id}`);
    expect((assignments.data as Row[]).map((a) => a.employee_id)).toEqual([sellerId]);
  });
});

describe('webhook steps', () => {
  it('posts the context to an HTTPS endpoint with one Idempotency-Key per visit, retrying server errors', async () => {
    const id = await createWorkflow({
      name: 'Aviso',
      preset_code: 'manual',
      steps: [{ key: 'notify', action: 'webhook', url: `${receiver.url}/crm-events`, headers: { 'X-Token': 'abc' } }],
    });
    receiver.answer(503);
    await post(`/api/workflows/${id}/execute`, {});
    await waitFor(() => receiver.calls.length >= 1 || undefined, 10_000);
    receiver.answer(200);
    const [run] = await finished(id);
    expect(run!.status).toBe('succeeded');
    const calls = receiver.calls.filter((c) => c.path === '/crm-events');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((c) => c.headers['idempotency-key'])).size).toBe(1);
    expect(calls.at(-1)).toMatchObject({
      method: 'POST',
      headers: { 'x-token': 'abc' },
      body: { workflow_id: id, execution_id: run!.id, step_key: 'notify', context: { trigger: { type: 'manual' } } },
    });
    expect((await detail(id, run!.id)).steps[0]).toMatchObject({ status: 'succeeded', attempts: calls.length, result: { status: 200 } });
  }, 30_000);
  it('records a failed call without the address a name resolved to', async () => {
    // A name (this machine's) and a port nobody listens on: the connection fails after resolution, or the
    // name resolves to a refused address, or it does not resolve; no error may show the resolved address.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const id = await createWorkflow({
      name: 'Aviso interno',
      preset_code: 'manual',
      steps: [{ key: 'notify', action: 'webhook', url: `https://${hostname()}:${port}/crm-events` }],
    });
    expect((await post(`/api/workflows/${id}/execute`, {})).statusCode).toBe(202);
    const run = await waitFor(async () => (await executionsOf(id))[0], 10_000);
    const step = await waitFor(async () => {
      const steps = (await detail(id, run.id)).steps as Row[];
      return steps[0]?.error ? steps[0] : undefined;
    }, 15_000);
    const shown = JSON.stringify([step.error, (await detail(id, run.id)).error]);
    expect(shown).toMatch(/address_not_allowed|network_error|the connection failed|resolves to/);
    expect(shown).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
    expect(shown).not.toMatch(/::1|::ffff|\[[0-9a-f:]+\]/i);
    expect(shown).not.toContain(`:${port}`);
  }, 30_000);
});

describe('loop protection', () => {
  it('stops a self-triggering workflow at the depth limit', async () => {
    const id = await createWorkflow({
      name: 'Eco',
      trigger_type: 'message.outbound',
      filters: [{ field: 'trigger.message_text', operator: 'contains', value: 'eco' }],
      steps: [{ key: 'echo', action: 'send_text', text: 'eco' }],
    });
    await inbound('hola otra vez');
    const conv = await conversation();
    expect((await post(`/interactions/conversations/${conv.id}/messages/text`, { body: 'eco' })).statusCode).toBe(202);
    const runs = await waitFor(async () => {
      const rows = await executionsOf(id);
      return rows.length >= 3 && rows.every((r) => r.status !== 'running') ? rows : undefined;
    }, 15_000);
    // The depth-2 run's own message is the event that reaches the limit: once it is counted as stopped, the
    // chain has ended and nothing more may start.
    const metrics = await waitFor(async () => {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      return /workflows_loop_stopped_total\{event="message.outbound"\} \d/.test(res.body) ? res : undefined;
    }, 15_000);
    expect((await executionsOf(id)).map((r) => r.depth).sort()).toEqual([0, 1, 2]);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    expect(metrics.body).toMatch(/workflows_loop_stopped_total\{event="message.outbound"\} 1/);
    await t.app.inject({ method: 'PATCH', url: `/api/workflows/${id}`, headers: bearer(token), payload: { enabled: false } });
  }, 30_000);
});

describe('scheduled', () => {
  const tick = async () => {
    await t.app.ctx.queue.enqueue(t.app.ctx.db, 'workflows.schedule-tick', {});
  };
  /** Enqueues a tick and resolves once its job has completed: every execution it starts exists by then. */
  const tickCompleted = async () => {
    const jobId = await t.app.ctx.queue.enqueue(t.app.ctx.db, 'workflows.schedule-tick', {});
    await waitFor(async () => {
      const { rows } = await t.database.executeSql('select state from pgboss.job where id = $1', [jobId]);
      return rows[0]?.state === 'completed' || undefined;
    }, 10_000);
  };
  const nextRunAt = async (id: number) => (await get(`/api/workflows/${id}`)).trigger.next_run_at as string | null;

  it('fires at the local time across a spring-forward change, once per slot', async () => {
    clock = new Date('2026-03-07T12:00:00Z'); // Saturday 07:00 in New York (EST)
    const daily = await createWorkflow({
      name: 'Diario',
      preset_code: 'sched_daily',
      preset_values: { run_at_time: '09:00' },
      steps: [{ key: 'hook', action: 'webhook', url: `${receiver.url}/daily` }],
    });
    const gap = await createWorkflow({
      name: 'En el hueco',
      preset_code: 'sched_daily',
      preset_values: { run_at_time: '02:30' },
      steps: [{ key: 'hook', action: 'webhook', url: `${receiver.url}/gap` }],
    });
    expect(await nextRunAt(daily)).toBe('2026-03-07T14:00:00.000Z'); // 09:00 EST
    expect(await nextRunAt(gap)).toBe('2026-03-08T07:30:00.000Z'); // 02:30 does not exist on Mar 8: 03:30 EDT

    clock = new Date('2026-03-07T14:00:20Z');
    await Promise.all([tick(), tick()]);
    await waitFor(async () => ((await nextRunAt(daily)) === '2026-03-08T13:00:00.000Z' ? true : undefined), 10_000); // 09:00 EDT next
    const [first] = await finished(daily);
    expect(first!.context_json.trigger).toEqual({
      type: 'scheduled',
      entity_id: entityId,
      execution_date: '2026-03-07',
      execution_time: '09:00',
      timezone: 'America/New_York',
      day_of_week: 6,
    });

    clock = new Date('2026-03-08T07:30:05Z');
    await tick();
    await waitFor(async () => ((await nextRunAt(gap)) === '2026-03-09T06:30:00.000Z' ? true : undefined), 10_000);
    const [gapRun] = await finished(gap);
    expect(gapRun!.context_json.trigger).toMatchObject({ execution_date: '2026-03-08', execution_time: '03:30', day_of_week: 7 });

    clock = new Date('2026-03-08T13:00:10Z');
    await tick();
    await tick();
    await waitFor(async () => ((await nextRunAt(daily)) === '2026-03-09T13:00:00.000Z' ? true : undefined), 10_000);
    const runs = await finished(daily, 2);
    expect(runs).toHaveLength(2);
    expect(runs[0]!.context_json.trigger).toMatchObject({ execution_date: '2026-03-08', execution_time: '09:00', day_of_week: 7 });
    expect(receiver.calls.filter((c) => c.path === '/daily')).toHaveLength(2);
    for (const id of [daily, gap]) await t.app.inject({ method: 'PATCH', url: `/api/workflows/${id}`, headers: bearer(token), payload: { enabled: false } });
  }, 40_000);

  it('runs a repeated fall-back hour once, keeps weekdays, and skips slots found too late', async () => {
    clock = new Date('2026-10-31T12:00:00Z'); // Saturday
    const id = await createWorkflow({
      name: 'Madrugada',
      preset_code: 'sched_weekdays',
      preset_values: { run_at_time: '01:30', timezone: 'America/New_York' },
      steps: [{ key: 'hook', action: 'webhook', url: `${receiver.url}/weekdays` }],
    });
    expect(await nextRunAt(id)).toBe('2026-11-02T06:30:00.000Z'); // Monday 01:30 EST: the weekend is skipped
    const sunday = await createWorkflow({
      name: 'Domingo',
      preset_code: 'sched_daily',
      preset_values: { run_at_time: '01:30' },
      steps: [{ key: 'hook', action: 'webhook', url: `${receiver.url}/fallback` }],
    });
    expect(await nextRunAt(sunday)).toBe('2026-11-01T05:30:00.000Z'); // the first 01:30 (EDT) of Nov 1
    clock = new Date('2026-11-01T05:30:30Z');
    await tick();
    await waitFor(async () => ((await nextRunAt(sunday)) === '2026-11-02T06:30:00.000Z' ? true : undefined), 10_000); // the second 01:30 (EST) is not a new slot
    clock = new Date('2026-11-01T06:30:30Z');
    await tickCompleted();
    await finished(sunday);
    expect(await executionsOf(sunday)).toHaveLength(1);

    clock = new Date('2026-11-03T12:00:00Z'); // two Monday/Tuesday slots ago: found far too late
    await tick();
    await waitFor(async () => ((await nextRunAt(id)) === '2026-11-04T06:30:00.000Z' ? true : undefined), 10_000);
    expect(await executionsOf(id)).toHaveLength(0);
  }, 40_000);
});
