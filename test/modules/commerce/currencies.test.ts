/**
 * A document never mixes currencies (docs/decisions.md "Commerce", Money): over HTTP, every way a
 * client could bring a second currency into a quote or an order is refused with 400 naming the field —
 * a line with its own currency, a draft changed to another currency, an order from a quote restating
 * the currency or the lines, a price written with another currency's digits — and lines replaced on a
 * draft or copied into an order stay in the document's currency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeLead } from '../../helpers/records-factories.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
let t: TestContext;
let token: string;
let leadId: number;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const entityId = (await makeEntity(db, 'Monedas')).id;
  token = await tokenFor(t.app, await makeMember(db, { entityId, codes: ['quotes.create', 'orders.create'] }));
  leadId = (await makeLead(db, { entityId })).id;
});
afterAll(async () => t?.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const line = (unitPrice: string, extra: object = {}) => ({ description: 'Licencia', quantity: '2', unit_price: unitPrice, ...extra });
const quoteIn = async (currency: string, unitPrice: string) => {
  const res = await call('POST', '/quotes', { lead_id: leadId, currency, valid_until: '2099-12-31', lines: [line(unitPrice)] });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Row>();
};
const expectRefused = (res: Awaited<ReturnType<typeof call>>, field: string) => {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.json()).toMatchObject({ status: 400, code: 'validation_failed' });
  expect((res.json().errors as Row[]).map((e) => e.field)).toContain(field);
};

describe('a second currency in a document', () => {
  it.each([
    ['a quote', '/quotes', { valid_until: '2099-12-31' }],
    ['an order', '/orders', {}],
  ])('is refused when a line of %s names its own currency', async (_name, url, extra) => {
    const count = async () => (await call('GET', `${url}?lead_id=${leadId}`)).json().pagination.total as number;
    const before = await count();
    const res = await call('POST', url, { lead_id: leadId, currency: 'GTQ', ...extra, lines: [line('10.00'), line('5.00', { currency: 'USD' })] });
    expectRefused(res, '/body/lines/1/currency');
    expect(await count()).toBe(before);
  });

  it('is refused when a draft is changed to another currency, and the draft keeps its own', async () => {
    const q = await quoteIn('GTQ', '10.00');
    expectRefused(await call('PATCH', `/quotes/${q.id}`, { currency: 'USD', lines: [line('10.00')] }), '/body/currency');
    expect((await call('GET', `/quotes/${q.id}`)).json()).toMatchObject({ currency: 'GTQ', total: '20.00', total_minor: 2000 });
  });

  it('prices the lines replaced on a draft in the draft currency only', async () => {
    const q = await quoteIn('JPY', '1500');
    expectRefused(await call('PATCH', `/quotes/${q.id}`, { lines: [line('1500'), line('12.50')] }), '/body/lines/1/unit_price');
    const changed = await call('PATCH', `/quotes/${q.id}`, { lines: [line('1500'), line('1250')] });
    expect(changed.json()).toMatchObject({
      currency: 'JPY',
      subtotal: '5500',
      total: '5500',
      total_minor: 5500,
      lines: [
        { unit_price: '1500', total: '3000' },
        { unit_price: '1250', total: '2500' },
      ],
    });
  });

  it.each([
    ['a currency', { currency: 'USD' }, '/body/currency'],
    ['lines', { lines: [line('10.00')] }, '/body/lines'],
  ])('is refused when an order from a quote restates %s, and the order takes the quote’s', async (_name, extra, field) => {
    const q = await quoteIn('KWD', '1.250');
    for (const action of ['send', 'approve']) expect((await call('POST', `/quotes/${q.id}/${action}`)).statusCode).toBe(200);
    expectRefused(await call('POST', '/orders', { quote_id: q.id, ...extra }), field);
    const order = await call('POST', '/orders', { quote_id: q.id });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json()).toMatchObject({
      quote_id: q.id,
      currency: 'KWD',
      total: '2.500',
      total_minor: 2500,
      lines: [{ unit_price: '1.250', total: '2.500' }],
    });
  });

  it.each([
    ['JPY', '10.5'],
    ['GTQ', '10.505'],
    ['KWD', '1.2505'],
  ])('refuses a %s price written with more digits than the currency has (%s) instead of rounding it', async (currency, price) => {
    expectRefused(await call('POST', '/orders', { lead_id: leadId, currency, lines: [line(price)] }), '/body/lines/0/unit_price');
  });
});
