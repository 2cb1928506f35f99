/**
 * Quotes, orders and opportunities over HTTP: totals, the quote state machine (every illegal move
 * refused), expiry, seller rules, orders from quotes, the pipeline and its history, the events (a
 * workflow on quote.approved runs), permission guards for every code and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeContact, makeGroup, makeLead } from '../../helpers/records-factories.js';
import { waitFor } from '../../helpers/interactions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
const ALL = ['quotes.create', 'orders.create', 'leads.edit', 'catalog.seller_change', 'workflows.manage'];
let t: TestContext;
let seller: string;
let plain: string;
let outsider: string;
let sellerId: number;
let otherSellerId: number;
let leadId: number;
let contactId: number;
let otherLeadContact: number;
let entityOne: number;

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  const db = t.database.db;
  const e1 = (await makeEntity(db, 'Comercio')).id;
  entityOne = e1;
  const e2 = (await makeEntity(db, 'Otra')).id;
  const m = await makeMember(db, { entityId: e1, codes: ALL });
  sellerId = m.employeeId;
  seller = await tokenFor(t.app, m);
  const p = await makeMember(db, { entityId: e1, codes: ['quotes.create', 'orders.create'] });
  plain = await tokenFor(t.app, p);
  otherSellerId = p.employeeId;
  outsider = await tokenFor(t.app, await makeMember(db, { entityId: e2, codes: ALL }));
  const group = await makeGroup(db, e1);
  leadId = (await makeLead(db, { entityId: e1, groupId: group.id })).id;
  contactId = (await makeContact(db, { entityId: e1, leadId })).id;
  const otherLead = (await makeLead(db, { entityId: e1, groupId: group.id })).id;
  otherLeadContact = (await makeContact(db, { entityId: e1, leadId: otherLead })).id;
});
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object, token = seller) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const future = '2099-12-31';
const LINES = [
  { product_code: 'P-1', description: 'Plan empresarial', quantity: '3', unit_price: '3.33', discount_percent: '10', tax_percent: '12' },
  { description: 'Instalación', quantity: '1.5', unit_price: '9.99' },
];
const newQuote = async (extra: object = {}, token = seller) => {
  const res = await call('POST', '/quotes', { lead_id: leadId, contact_id: contactId, currency: 'GTQ', valid_until: future, lines: LINES, ...extra }, token);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Row>();
};

describe('quotes', () => {
  it('prices lines in minor units with the documented rounding', async () => {
    const q = await newQuote();
    expect(q).toMatchObject({ status: 'draft', currency: 'GTQ', seller_employee_id: sellerId, lead_id: leadId, contact_id: contactId });
    expect(q.lines).toEqual([
      expect.objectContaining({
        position: 1,
        quantity: '3',
        unit_price: '3.33',
        discount_percent: '10',
        tax_percent: '12',
        gross: '9.99',
        discount: '1.00',
        tax: '1.08',
        total: '10.07',
        total_minor: 1007,
      }),
      expect.objectContaining({ position: 2, quantity: '1.5', unit_price: '9.99', gross: '14.99', discount: '0.00', tax: '0.00', total: '14.99' }),
    ]);
    expect(q).toMatchObject({ subtotal: '24.98', discount: '1.00', tax: '1.08', total: '25.06', total_minor: 2506 });
  });

  it.each([
    ['an unknown currency', { currency: 'XYZ' }, '/body/currency'],
    ['more decimals than the currency has', { currency: 'JPY', lines: [{ description: 'x', quantity: '1', unit_price: '1.5' }] }, '/body/lines/0/unit_price'],
    ['a discount over 100 %', { lines: [{ description: 'x', quantity: '1', unit_price: '1', discount_percent: '101' }] }, '/body/lines/0/discount_percent'],
    ['a contact of another lead', { contact_id: 0 }, '/body/contact_id'],
    ['a line whose amounts overflow', { lines: [{ description: 'x', quantity: '9999999999999', unit_price: '9999999999999' }] }, '/body/lines/0'],
    [
      'a quantity as a JSON number (amounts are decimal strings only)',
      { lines: [{ description: 'x', quantity: 1.5, unit_price: '1' }] },
      '/body/lines/0/quantity',
    ],
    ['a unit price as a JSON number', { lines: [{ description: 'x', quantity: '1', unit_price: 12.5 }] }, '/body/lines/0/unit_price'],
    ['a total that overflows', { lines: Array.from({ length: 11 }, () => ({ description: 'x', quantity: '1', unit_price: '9000000000000' })) }, '/body/lines'],
  ])('refuses %s with 400 naming the field', async (_name, extra, field) => {
    const body: Row = { lead_id: leadId, currency: 'GTQ', valid_until: future, lines: LINES, ...extra };
    if ((extra as Row).contact_id === 0) body.contact_id = otherLeadContact;
    const res = await call('POST', '/quotes', body);
    expect(res.statusCode, res.body).toBe(400);
    expect((res.json().errors as Row[]).map((e) => e.field)).toContain(field);
  });

  it('moves draft → sent → approved and refuses every other move', async () => {
    const q = await newQuote();
    const move = (action: string, id = q.id) => call('POST', `/quotes/${id}/${action}`);
    for (const action of ['approve', 'reject']) expect((await move(action)).json()).toMatchObject({ code: 'invalid_transition', status: 409 });
    expect((await move('send')).json()).toMatchObject({ status: 'sent' });
    expect((await move('send')).statusCode).toBe(409);
    expect((await call('PATCH', `/quotes/${q.id}`, { notes: 'x' })).json().code).toBe('quote_not_editable');
    expect((await move('approve')).json()).toMatchObject({ status: 'approved', decided_at: expect.any(String) });
    for (const action of ['send', 'approve', 'reject']) expect((await move(action)).statusCode).toBe(409);
    const r = await newQuote();
    await move('send', r.id);
    expect((await move('reject', r.id)).json().status).toBe('rejected');
    for (const action of ['send', 'approve', 'reject']) expect((await move(action, r.id)).statusCode).toBe(409);
  });

  it('lets only drafts change, replacing lines and totals', async () => {
    const q = await newQuote();
    const res = await call('PATCH', `/quotes/${q.id}`, { lines: [{ description: 'Solo', quantity: '2', unit_price: '5' }], notes: 'nuevo' });
    expect(res.json()).toMatchObject({ notes: 'nuevo', total: '10.00', lines: [{ description: 'Solo' }] });
  });

  it('expires an open quote once its validity has passed, and refuses to move it', async () => {
    const q = await newQuote({ valid_until: '2020-01-01' });
    expect(q.status).toBe('expired');
    expect((await call('POST', `/quotes/${q.id}/send`)).json()).toMatchObject({ code: 'invalid_transition', status: 409 });
    expect((await call('GET', `/quotes?status=expired&lead_id=${leadId}`)).json().data.map((r: Row) => r.id)).toContain(q.id);
  });

  it('quotes for another seller only with catalog.seller_change', async () => {
    expect((await newQuote({ seller_employee_id: otherSellerId })).seller_employee_id).toBe(otherSellerId);
    const res = await call('POST', '/quotes', { lead_id: leadId, currency: 'GTQ', valid_until: future, lines: LINES, seller_employee_id: sellerId }, plain);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('seller_change_forbidden');
    expect((await newQuote({}, plain)).seller_employee_id).toBe(otherSellerId);
  });
});

describe('orders', () => {
  it('comes from an approved quote once, copying it, or directly', async () => {
    const q = await newQuote();
    expect((await call('POST', '/orders', { quote_id: q.id })).json()).toMatchObject({ status: 409, code: 'quote_not_approved' });
    await call('POST', `/quotes/${q.id}/send`);
    await call('POST', `/quotes/${q.id}/approve`);
    const res = await call('POST', '/orders', { quote_id: q.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      quote_id: q.id,
      lead_id: leadId,
      contact_id: contactId,
      currency: 'GTQ',
      total: '25.06',
      lines: q.lines,
      erp: { push_status: 'pending' },
    });
    expect((await call('POST', '/orders', { quote_id: q.id })).json()).toMatchObject({ status: 409, code: 'order_exists' });
    expect((await call('GET', `/quotes/${q.id}`)).json().order_id).toBe(res.json().id);
    const direct = await call('POST', '/orders', { lead_id: leadId, currency: 'USD', lines: [{ description: 'Soporte', quantity: '1', unit_price: '100' }] });
    expect(direct.json()).toMatchObject({ quote_id: null, currency: 'USD', total: '100.00' });
  });
});

describe('opportunities', () => {
  it('starts with a default pipeline, records every move with who and when', async () => {
    const pipeline = (await call('GET', '/opportunity-pipeline')).json().states as Row[];
    expect(pipeline.map((s) => s.name)).toEqual(['Prospecto', 'Calificado', 'Propuesta', 'Negociación', 'Ganada', 'Perdida']);
    const res = await call('POST', '/opportunities', {
      lead_id: leadId,
      name: 'Renovación',
      value: '15000',
      currency: 'GTQ',
      expected_close_date: '2027-01-31',
    });
    expect(res.statusCode, res.body).toBe(201);
    const o = res.json();
    expect(o).toMatchObject({
      state: { name: 'Prospecto' },
      value: '15000.00',
      value_minor: 1_500_000,
      owner_employee_id: sellerId,
      history: [{ from_state_id: null, to_state_id: pipeline[0]!.id }],
    });
    const won = pipeline.find((s) => s.outcome === 'won')!;
    const moved = await call('POST', `/opportunities/${o.id}/state`, { state_id: won.id });
    expect(moved.json()).toMatchObject({
      state: { name: 'Ganada', outcome: 'won' },
      history: [{}, { from_state_id: pipeline[0]!.id, to_state_id: won.id, changed_by_employee_id: sellerId }],
    });
    expect((await call('POST', `/opportunities/${o.id}/state`, { state_id: won.id })).json().code).toBe('invalid_transition');
    expect(
      (
        await call('PUT', '/opportunity-pipeline', {
          states: [
            { name: 'Abierta', outcome: 'open' },
            { name: 'Cerrada', outcome: 'won' },
          ],
        })
      ).json(),
    ).toMatchObject({ status: 409, code: 'state_in_use' });
    const renamed = await call('PUT', '/opportunity-pipeline', {
      states: [
        ...pipeline.map((s) => ({ id: s.id, name: s.name === 'Ganada' ? 'Cerrada ganada' : s.name, outcome: s.outcome })),
        { name: 'Pausada', outcome: 'open' },
      ],
    });
    expect(renamed.json().states.map((s: Row) => s.name)).toContain('Cerrada ganada');
  });
});

describe('events', () => {
  it('quote.approved runs a workflow of the CRM card', async () => {
    const wf = await call('POST', '/api/workflows', {
      name: 'Aprobada',
      preset_code: 'crm_quote_approved',
      filters: [{ field: 'trigger.total', operator: 'gt', value: 20 }],
      steps: [{ key: 'note', action: 'wait', seconds: 1 }],
    });
    expect(wf.statusCode, wf.body).toBe(201);
    const q = await newQuote();
    await call('POST', `/quotes/${q.id}/send`);
    await call('POST', `/quotes/${q.id}/approve`);
    const runs = await waitFor(async () => {
      const data = (await call('GET', `/api/workflows/${wf.json().id}/executions`)).json().data as Row[];
      return data.length > 0 ? data : undefined;
    }, 10_000);
    expect(runs[0]!.context_json.trigger).toMatchObject({
      type: 'quote.approved',
      quote_id: q.id,
      lead_id: leadId,
      contact_id: contactId,
      currency: 'GTQ',
      total: 25.06,
      seller_employee_id: sellerId,
    });
  });
});

describe('permissions and tenants', () => {
  it('guards every route with its code', async () => {
    const nobody = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityOne, codes: ['contacts.view'] }));
    const q = await newQuote();
    const routes: [method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object][] = [
      ['GET', '/quotes'],
      ['GET', `/quotes/${q.id}`],
      ['POST', '/quotes', { lead_id: leadId, currency: 'GTQ', valid_until: future, lines: LINES }],
      ['PATCH', `/quotes/${q.id}`, { notes: 'x' }],
      ['POST', `/quotes/${q.id}/send`],
      ['GET', '/orders'],
      ['POST', '/orders', { quote_id: q.id }],
      ['GET', '/opportunities'],
      ['POST', '/opportunities', { lead_id: leadId, name: 'x', value: '1', currency: 'GTQ' }],
      ['GET', '/opportunity-pipeline'],
      [
        'PUT',
        '/opportunity-pipeline',
        {
          states: [
            { name: 'a', outcome: 'open' },
            { name: 'b', outcome: 'won' },
          ],
        },
      ],
      ['GET', '/catalogs/products'],
      ['GET', '/interactions/conversations/1/catalog/context'],
      ['GET', '/interactions/conversations/1/catalog/products'],
      ['POST', '/interactions/conversations/1/catalog/send', { product_id: 'P-1' }],
      ['GET', `/quotes/${q.id}/pdf`],
      ['POST', `/quotes/${q.id}/send-to-conversation`, { conversation_id: 1 }],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, payload, nobody);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().code).toBe('permission_denied');
    }
    expect((await call('GET', '/quotes', undefined, plain)).statusCode).toBe(200); // quotes.create implies quotes.view
  });

  it('never shows or changes another entity’s quote, order or opportunity', async () => {
    const q = await newQuote();
    await call('POST', `/quotes/${q.id}/send`);
    await call('POST', `/quotes/${q.id}/approve`);
    const order = (await call('POST', '/orders', { quote_id: q.id })).json();
    const opp = (await call('POST', '/opportunities', { lead_id: leadId, name: 'Mía', value: '1', currency: 'GTQ' })).json();
    for (const [method, url, payload] of [
      ['GET', `/quotes/${q.id}`],
      ['PATCH', `/quotes/${q.id}`, { notes: 'x' }],
      ['POST', `/quotes/${q.id}/reject`],
      ['GET', `/orders/${order.id}`],
      ['GET', `/opportunities/${opp.id}`],
      ['POST', `/opportunities/${opp.id}/state`, { state_id: opp.state.id }],
    ] as const) {
      expect((await call(method, url, payload, outsider)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call('POST', '/orders', { quote_id: q.id }, outsider)).statusCode).toBe(404);
    expect((await call('POST', '/quotes', { lead_id: leadId, currency: 'GTQ', valid_until: future, lines: LINES }, outsider)).statusCode).toBe(400);
    for (const url of ['/quotes', '/orders', '/opportunities']) expect((await call('GET', url, undefined, outsider)).json().data).toEqual([]);
  });
});
