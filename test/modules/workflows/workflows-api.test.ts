/**
 * `/api/workflows` over HTTP: presets and the field registry, creation from presets and explicit
 * triggers, validation errors naming the filter or step, versions, enable/disable, delete, dry runs,
 * permissions and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { waitFor } from '../../helpers/interactions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
let t: TestContext;
let manager: string;
let viewer: string;
let outsider: string;

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  const e1 = (await makeEntity(t.database.db, 'Workflows One')).id;
  const e2 = (await makeEntity(t.database.db, 'Workflows Two')).id;
  manager = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['workflows.manage', 'workflows.execute'] }));
  viewer = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['workflows.view'] }));
  outsider = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['workflows.manage', 'workflows.execute'] }));
});
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, token = manager) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const create = async (body: object, token = manager) => call('POST', '/api/workflows', body, token);
const reply = [{ key: 'reply', action: 'send_text', text: 'Hola {{trigger.sender_name}}' }];

describe('presets and registry', () => {
  it('lists SPEC’s cards and the CRM cards', async () => {
    const res = await call('GET', '/api/workflows/trigger-presets', undefined, viewer);
    expect(res.statusCode).toBe(200);
    const cards = res.json().data as Row[];
    expect(cards.map((c) => c.code)).toEqual(
      expect.arrayContaining(['msg_unassigned', 'msg_assigned', 'msg_first', 'msg_any', 'msg_keyword', 'sched_daily', 'sched_weekdays', 'manual']),
    );
    expect(cards.find((c) => c.code === 'msg_keyword')).toMatchObject({
      event: 'message.inbound',
      category: 'Mensajeria',
      filters: [{ field: 'trigger.message_text', operator: 'contains' }],
      inputs: [{ name: 'keyword', required: true }],
    });
    expect(cards.find((c) => c.code === 'sched_weekdays')).toMatchObject({
      event: 'scheduled',
      category: 'Tiempo',
      filters: [{ field: 'active_days', operator: 'in', value: [1, 2, 3, 4, 5] }],
    });
    expect(cards.find((c) => c.code === 'crm_lead_created')).toMatchObject({ category: 'CRM', available: true });
    expect(cards.find((c) => c.code === 'crm_quote_approved')).toMatchObject({ event: 'quote.approved', available: true });
    expect(cards.find((c) => c.code === 'conv_resolved')).toMatchObject({ event: 'conversation.resolved', available: true, filters: [] });
    expect(cards.find((c) => c.code === 'conv_reopened')).toMatchObject({ event: 'conversation.reopened', available: true, filters: [] });
  });

  it('serves the field registry with types, operators and values', async () => {
    const res = await call('GET', '/api/workflows/trigger-fields', undefined, viewer);
    const inbound = (res.json().data as Row[]).find((e) => e.event === 'message.inbound')!;
    expect(inbound.status).toBe('mvp');
    expect(inbound.fields.find((f: Row) => f.field === 'trigger.channel_type_code')).toMatchObject({
      type: 'string',
      operators: ['eq', 'neq', 'in', 'not_in'],
      values: ['chatapp_api', 'chatapp_business', 'social_messenger', 'social_dm'],
    });
    // Manual takes no trigger filters: its fields serve condition steps only.
    expect(((res.json().data as Row[]).find((e) => e.event === 'manual')!.fields as Row[]).every((f) => f.conditionsOnly === true)).toBe(true);
    const reopened = (res.json().data as Row[]).find((e) => e.event === 'conversation.reopened')!;
    expect(reopened.fields.find((f: Row) => f.field === 'trigger.via')).toMatchObject({ values: ['manual', 'inbound_message'] });
  });
});

describe('creating and changing', () => {
  it('resolves a preset on the server and stores its code', async () => {
    const res = await create({ name: 'Precio', preset_code: 'msg_keyword', preset_values: { keyword: ' precio ' }, steps: reply });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      enabled: true,
      version: 1,
      trigger: {
        trigger_type: 'message.inbound',
        preset_code: 'msg_keyword',
        filters: [{ field: 'trigger.message_text', operator: 'contains', value: 'precio' }],
      },
      steps: reply,
    });
  });

  it('takes an explicit trigger with OR groups and date filters', async () => {
    const filters = [
      { field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' },
      {
        any: [
          { field: 'trigger.is_first_message', operator: 'eq', value: true },
          { field: 'trigger.occurred_at', operator: 'after', value: { ago: 'PT1H' } },
        ],
      },
    ];
    const res = await create({ name: 'Custom', trigger_type: 'message.inbound', filters, steps: reply });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().trigger).toMatchObject({ preset_code: null, filters });
  });

  it('computes the next slot of a scheduled workflow', async () => {
    const res = await create({
      name: 'Daily',
      preset_code: 'sched_daily',
      preset_values: { run_at_time: '08:00', timezone: 'America/Guatemala' },
      steps: [{ key: 'call', action: 'webhook', url: 'https://example.com/hook' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const next = new Date(res.json().trigger.next_run_at as string);
    expect(next.getUTCHours()).toBe(14); // 08:00 in Guatemala (UTC-6, no daylight saving)
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
  });

  it.each([
    ['an unknown preset', { preset_code: 'msg_nope', steps: reply }, '/body/preset_code'],
    ['a keyword card without its keyword', { preset_code: 'msg_keyword', steps: reply }, '/body/preset_values/keyword'],
    ['neither preset nor trigger type', { steps: reply }, '/body/trigger_type'],
    [
      'a filter on an unknown field',
      { trigger_type: 'message.inbound', filters: [{ field: 'trigger.nope', operator: 'eq', value: 1 }], steps: reply },
      '/body/filters/0',
    ],
    [
      'an operator the field does not allow',
      { preset_code: 'msg_any', filters: [{ field: 'trigger.assignment_status', operator: 'neq', value: 'assigned' }], steps: reply },
      '/body/filters/0',
    ],
    [
      'a wrongly typed value deep in a group',
      { trigger_type: 'message.inbound', filters: [{ any: [{ field: 'trigger.is_first_message', operator: 'eq', value: 'true' }] }], steps: reply },
      '/body/filters/0/any/0',
    ],
    ['a step pointing nowhere', { preset_code: 'msg_any', steps: [{ key: 'a', action: 'send_text', text: 'x', next: 'missing' }] }, '/body/steps/0/next'],
    ['a repeated step key', { preset_code: 'msg_any', steps: [reply[0], reply[0]] }, '/body/steps/1/key'],
    [
      'a condition on an unknown step’s visits',
      { preset_code: 'msg_any', steps: [{ key: 'c', action: 'condition', filters: [{ field: 'workflow.step_visits.zz', operator: 'gt', value: 1 }] }] },
      '/body/steps/0/filters/0',
    ],
    ['a send on a scheduled workflow', { preset_code: 'sched_daily', preset_values: { run_at_time: '08:00' }, steps: reply }, '/body/steps/0/action'],
    ['a plain-http webhook', { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'http://example.com/x' }] }, '/body/steps/0/url'],
    ['a loopback webhook', { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'https://127.0.0.1/x' }] }, '/body/steps/0/url'],
    ['a private webhook', { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'https://10.1.2.3/x' }] }, '/body/steps/0/url'],
    [
      'an IPv4-compatible loopback webhook',
      { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'https://[::7f00:1]/x' }] },
      '/body/steps/0/url',
    ],
    [
      'an IPv4-mapped loopback webhook',
      { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'https://[::ffff:127.0.0.1]/x' }] },
      '/body/steps/0/url',
    ],
    ['a NAT64 private webhook', { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'https://[64:ff9b::a01:203]/x' }] }, '/body/steps/0/url'],
    [
      'a metadata-address webhook',
      { preset_code: 'manual', steps: [{ key: 'w', action: 'webhook', url: 'https://169.254.169.254/latest' }] },
      '/body/steps/0/url',
    ],
    [
      'an assignment to both an employee and a queue',
      { preset_code: 'msg_any', steps: [{ key: 'a', action: 'assign_conversation', employee_id: 1, queue_id: 2 }] },
      '/body/steps/0',
    ],
  ])('answers 400 for %s, naming it', async (_name, body, field) => {
    const res = await create({ name: 'Bad', ...body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().code).toBe('validation_failed');
    expect((res.json().errors as Row[]).map((e) => e.field)).toContain(field);
  });

  it.each([
    ['in on a boolean field', { field: 'trigger.is_first_message', operator: 'in', value: [true] }],
    ['is_empty on a boolean field', { field: 'trigger.is_first_message', operator: 'is_empty' }],
    ['eq on a date field', { field: 'trigger.occurred_at', operator: 'eq', value: '2026-03-10T11:00:00Z' }],
    ['is_not_empty on a date field', { field: 'trigger.occurred_at', operator: 'is_not_empty' }],
    ['contains on a number field', { field: 'trigger.contact_id', operator: 'contains', value: 4 }],
    ['gt on a number list', { field: 'trigger.assigned_employee_ids', operator: 'gt', value: 1 }],
    ['after on a text field', { field: 'trigger.message_text', operator: 'after', value: { ago: 'P1D' } }],
  ])('refuses to save %s, in the trigger and in a condition', async (_name, filter) => {
    const inTrigger = await create({ name: 'Bad type', trigger_type: 'message.inbound', filters: [filter], steps: reply });
    const inCondition = await create({
      name: 'Bad type',
      preset_code: 'msg_any',
      steps: [{ key: 'check', action: 'condition', filters: [{ any: [filter] }] }, ...reply],
    });
    for (const [res, at] of [
      [inTrigger, '/body/filters/0'],
      [inCondition, '/body/steps/0/filters/0/any/0'],
    ] as const) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: at, message: expect.stringContaining(`not ${filter.operator}`) }] });
    }
  });

  it('rejects unknown step members instead of dropping them', async () => {
    const res = await create({ name: 'Typo', preset_code: 'msg_any', steps: [{ key: 'a', action: 'send_text', txt: 'hola' }] });
    expect(res.statusCode).toBe(400);
  });

  it('versions the definition, keeps name and enabled changes in place, and lists versions', async () => {
    const id = (await create({ name: 'Versioned', preset_code: 'msg_keyword', preset_values: { keyword: 'hola' }, steps: reply })).json().id as number;
    const renamed = await call('PATCH', `/api/workflows/${id}`, { name: 'Renamed', enabled: false });
    expect(renamed.json()).toMatchObject({ name: 'Renamed', enabled: false, version: 1 });
    const stepsChanged = await call('PATCH', `/api/workflows/${id}`, { steps: [{ key: 'note', action: 'add_note', text: 'nuevo' }] });
    expect(stepsChanged.json()).toMatchObject({ version: 2, steps: [{ key: 'note' }], trigger: { preset_code: 'msg_keyword', filters: [{ value: 'hola' }] } });
    const newKeyword = await call('PATCH', `/api/workflows/${id}`, { preset_values: { keyword: 'adiós' } });
    expect(newKeyword.json()).toMatchObject({ version: 3, trigger: { filters: [{ value: 'adiós' }] } });
    const invalid = await call('PATCH', `/api/workflows/${id}`, { filters: [{ field: 'trigger.nope', operator: 'eq', value: 1 }] });
    expect(invalid.statusCode).toBe(400);
    const versions = (await call('GET', `/api/workflows/${id}/versions`, undefined, viewer)).json().data as Row[];
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(versions[2]!.definition.steps).toEqual(reply);
  });

  it('lists and filters, deletes softly', async () => {
    const id = (await create({ name: 'To delete', preset_code: 'manual', steps: [{ key: 'w', action: 'wait', seconds: 5 }] })).json().id as number;
    const manual = (await call('GET', '/api/workflows?trigger_type=manual', undefined, viewer)).json();
    expect((manual.data as Row[]).map((w) => w.id)).toContain(id);
    expect((manual.data as Row[]).every((w) => w.trigger.trigger_type === 'manual')).toBe(true);
    expect((await call('DELETE', `/api/workflows/${id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/workflows/${id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/workflows/${id}`)).statusCode).toBe(404);
  });
});

describe('dry run', () => {
  it('walks conditions against a sample and performs nothing', async () => {
    const body = {
      name: 'Branches',
      preset_code: 'msg_keyword',
      preset_values: { keyword: 'precio' },
      steps: [
        { key: 'check', action: 'condition', filters: [{ field: 'trigger.is_first_message', operator: 'eq', value: true }], then: 'welcome', else: 'again' },
        { key: 'welcome', action: 'send_text', text: 'Bienvenida, {{trigger.sender_name}}', next: null },
        { key: 'again', action: 'add_note', text: 'Volvió a preguntar' },
      ],
    };
    const id = (await create(body)).json().id as number;
    const first = await call(
      'POST',
      `/api/workflows/${id}/dry-run`,
      { context: { trigger: { message_text: 'El PRECIO?', is_first_message: true, sender_name: 'Ana' } } },
      viewer,
    );
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({
      matched: true,
      steps: [
        { step_key: 'check', action: 'condition', would: { holds: true } },
        { step_key: 'welcome', action: 'send_text', would: { send: { kind: 'text', body: 'Bienvenida, Ana' }, conversation: null } },
      ],
    });
    const other = (
      await call('POST', `/api/workflows/${id}/dry-run`, { context: { trigger: { message_text: 'hola', is_first_message: false } } }, viewer)
    ).json();
    expect(other.matched).toBe(false);
    expect((other.steps as Row[]).map((s) => s.step_key)).toEqual(['check', 'again']);
  });
});

describe('webhook step headers', () => {
  it('show their values only to those who may edit the workflow; viewers see the names', async () => {
    const steps = [
      { key: 'w', action: 'webhook', url: 'https://hooks.example.com/x', headers: { Authorization: 'Bearer very-secret-123', 'X-Tenant': 'acme' } },
    ];
    const id = (await create({ name: 'With secrets', preset_code: 'manual', steps })).json().id as number;
    for (const url of [`/api/workflows/${id}`, '/api/workflows', `/api/workflows/${id}/versions`]) {
      const seen = await call('GET', url, undefined, viewer);
      expect(seen.statusCode, url).toBe(200);
      expect(seen.body, url).not.toContain('very-secret-123');
      expect(seen.body, url).toContain('"Authorization":"[hidden]"');
    }
    const managed = await call('GET', `/api/workflows/${id}`);
    expect(managed.json().steps[0].headers).toEqual({ Authorization: 'Bearer very-secret-123', 'X-Tenant': 'acme' });
  });
});

describe('manual execution', () => {
  it('runs with no body at all, the body being optional', async () => {
    const id = (await create({ name: 'Sin cuerpo', preset_code: 'manual', steps: reply })).json().id as number;
    const res = await t.app.inject({ method: 'POST', url: `/api/workflows/${id}/execute`, headers: bearer(manager) });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: expect.any(String) });
  });
});

describe('webhook addresses at run time', () => {
  it('refuses a name that resolves to a private or loopback address', async (ctx) => {
    const local = hostname();
    if (!(await lookup(local).catch(() => undefined))) return ctx.skip(); // this machine's own name does not resolve
    const id = (await create({ name: 'Interna', preset_code: 'manual', steps: [{ key: 'notify', action: 'webhook', url: `https://${local}:9/x` }] })).json()
      .id as number;
    expect((await call('POST', `/api/workflows/${id}/execute`, {})).statusCode).toBe(202);
    const run = await waitFor(
      async () => ((await call('GET', `/api/workflows/${id}/executions`)).json().data as Row[]).find((r) => r.status !== 'running'),
      15_000,
    );
    expect(run).toMatchObject({ status: 'failed', error: { step_key: 'notify', code: 'address_not_allowed', retryable: false } });
  });
});

describe('permissions and tenants', () => {
  it('needs workflows.manage to change and workflows.execute to run', async () => {
    expect((await create({ name: 'No', preset_code: 'manual', steps: reply }, viewer)).statusCode).toBe(403);
    const id = (await create({ name: 'Run me', preset_code: 'manual', steps: [{ key: 'w', action: 'wait', seconds: 60 }] })).json().id as number;
    expect((await call('POST', `/api/workflows/${id}/execute`, {}, viewer)).statusCode).toBe(403);
    expect((await call('GET', `/api/workflows/${id}`, undefined, viewer)).statusCode).toBe(200);
  });

  it('never shows or changes another entity’s workflow', async () => {
    const id = (await create({ name: 'Mine', preset_code: 'manual', steps: [{ key: 'w', action: 'wait', seconds: 60 }] })).json().id as number;
    for (const [method, url, payload] of [
      ['GET', `/api/workflows/${id}`],
      ['PATCH', `/api/workflows/${id}`, { enabled: false }],
      ['DELETE', `/api/workflows/${id}`],
      ['GET', `/api/workflows/${id}/versions`],
      ['GET', `/api/workflows/${id}/executions`],
      ['POST', `/api/workflows/${id}/execute`, {}],
      ['POST', `/api/workflows/${id}/dry-run`, { context: {} }],
    ] as const) {
      expect((await call(method, url, payload, outsider)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect(((await call('GET', '/api/workflows', undefined, outsider)).json().data as Row[]).map((w) => w.id)).not.toContain(id);
    expect((await call('GET', `/api/workflows/${id}`)).json().enabled).toBe(true);
  });
});
