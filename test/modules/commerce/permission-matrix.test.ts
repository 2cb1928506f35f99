/**
 * Permission guards of commerce, as a matrix: for each SPEC code of the catalog module (catalog.view,
 * catalog.seller_change, orders.view, orders.create, quotes.view, quotes.create) a member holding that
 * code alone — that is, exactly what the catalogue grants with it (docs/decisions.md: seller_change →
 * catalog.view, orders.create → orders.view, quotes.create → quotes.view) — passes the guard of that
 * code's routes and is refused 403 `permission_denied` naming the required code on every other route.
 * `catalog.seller_change` has no route of its own: it lets a quote or order name another seller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeLead } from '../../helpers/records-factories.js';
import { erpEnv, startTestErp } from '../../helpers/erp.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
type Method = 'GET' | 'POST' | 'PATCH';
type Code = 'catalog.view' | 'catalog.seller_change' | 'orders.view' | 'orders.create' | 'quotes.view' | 'quotes.create';

/** What holding each code alone amounts to (the catalogue's implications, as documented). */
const GRANTS: Record<Code, Code[]> = {
  'catalog.view': ['catalog.view'],
  'catalog.seller_change': ['catalog.seller_change', 'catalog.view'],
  'orders.view': ['orders.view'],
  'orders.create': ['orders.create', 'orders.view'],
  'quotes.view': ['quotes.view'],
  'quotes.create': ['quotes.create', 'quotes.view'],
};
const CODES = Object.keys(GRANTS) as Code[];
const NO_CONVERSATION = 2_000_000_000;
const LINE = { description: 'Soporte', quantity: '1', unit_price: '100' };

let t: TestContext;
let erp: ErpSimulator;
let entityId: number;
let leadId: number;
let admin: string;
const tokens = {} as Record<Code, string>;
const ids: Record<'draftToEdit' | 'draftToSend' | 'sentToApprove' | 'sentToReject' | 'quote' | 'order', number> = {
  draftToEdit: 0,
  draftToSend: 0,
  sentToApprove: 0,
  sentToReject: 0,
  quote: 0,
  order: 0,
};

const call = (method: Method, url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const created = async (method: Method, url: string, payload?: object) => {
  const res = await call(method, url, admin, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json<Row>().id as number;
};

beforeAll(async () => {
  erp = await startTestErp();
  t = await createTestApp({ env: erpEnv(erp) });
  const db = t.database.db;
  entityId = (await makeEntity(db, 'Permisos')).id;
  leadId = (await makeLead(db, { entityId })).id;
  admin = await tokenFor(t.app, await makeMember(db, { entityId, codes: ['quotes.create', 'orders.create'] }));
  for (const code of CODES) tokens[code] = await tokenFor(t.app, await makeMember(db, { entityId, codes: [code], conversations: 'restricted' }));
  const quote = { lead_id: leadId, currency: 'GTQ', valid_until: '2099-12-31', lines: [LINE] };
  for (const key of ['draftToEdit', 'draftToSend', 'sentToApprove', 'sentToReject', 'quote'] as const) ids[key] = await created('POST', '/quotes', quote);
  for (const key of ['sentToApprove', 'sentToReject'] as const) await created('POST', `/quotes/${ids[key]}/send`);
  ids.order = await created('POST', '/orders', { lead_id: leadId, currency: 'GTQ', lines: [LINE] });
});
afterAll(async () => {
  await t?.close();
  await erp?.close();
});

/**
 * Every route guarded by a code of the matrix, and what a caller who passes the guard gets: the catalog
 * is ERP-backed (a cold cache without an ERP session is 428) and the conversation routes are asked about
 * a conversation that does not exist (404) — both answers only a handler gives.
 */
interface Route {
  code: Code;
  method: Method;
  url: () => string;
  payload?: () => object;
  allowed: { status: number; code?: string };
}
const ROUTES: Route[] = [
  { code: 'catalog.view', method: 'GET', url: () => '/catalogs/products', allowed: { status: 428, code: 'erp_session_required' } },
  {
    code: 'catalog.view',
    method: 'GET',
    url: () => `/interactions/conversations/${NO_CONVERSATION}/catalog/context`,
    allowed: { status: 404, code: 'not_found' },
  },
  {
    code: 'catalog.view',
    method: 'GET',
    url: () => `/interactions/conversations/${NO_CONVERSATION}/catalog/products`,
    allowed: { status: 404, code: 'not_found' },
  },
  {
    code: 'catalog.view',
    method: 'POST',
    url: () => `/interactions/conversations/${NO_CONVERSATION}/catalog/send`,
    payload: () => ({ product_id: 'P-1' }),
    allowed: { status: 404, code: 'not_found' },
  },
  { code: 'orders.view', method: 'GET', url: () => '/orders', allowed: { status: 200 } },
  { code: 'orders.view', method: 'GET', url: () => `/orders/${ids.order}`, allowed: { status: 200 } },
  {
    code: 'orders.create',
    method: 'POST',
    url: () => '/orders',
    payload: () => ({ lead_id: leadId, currency: 'GTQ', lines: [LINE] }),
    allowed: { status: 201 },
  },
  { code: 'orders.create', method: 'POST', url: () => `/orders/${ids.order}/erp-push`, allowed: { status: 200 } },
  { code: 'quotes.view', method: 'GET', url: () => '/quotes', allowed: { status: 200 } },
  { code: 'quotes.view', method: 'GET', url: () => `/quotes/${ids.quote}`, allowed: { status: 200 } },
  { code: 'quotes.view', method: 'GET', url: () => `/quotes/${ids.quote}/pdf`, allowed: { status: 200 } },
  {
    code: 'quotes.create',
    method: 'POST',
    url: () => '/quotes',
    payload: () => ({ lead_id: leadId, currency: 'GTQ', valid_until: '2099-12-31', lines: [LINE] }),
    allowed: { status: 201 },
  },
  { code: 'quotes.create', method: 'PATCH', url: () => `/quotes/${ids.draftToEdit}`, payload: () => ({ notes: 'cambio' }), allowed: { status: 200 } },
  { code: 'quotes.create', method: 'POST', url: () => `/quotes/${ids.draftToSend}/send`, allowed: { status: 200 } },
  { code: 'quotes.create', method: 'POST', url: () => `/quotes/${ids.sentToApprove}/approve`, allowed: { status: 200 } },
  { code: 'quotes.create', method: 'POST', url: () => `/quotes/${ids.sentToReject}/reject`, allowed: { status: 200 } },
  {
    code: 'quotes.create',
    method: 'POST',
    url: () => `/quotes/${ids.quote}/send-to-conversation`,
    payload: () => ({ conversation_id: NO_CONVERSATION }),
    allowed: { status: 404, code: 'not_found' },
  },
];
const label = (r: Route) => `${r.method} ${r.url().replace(/\/\d+/g, '/:id')}`;
const CELLS = CODES.flatMap((holder) =>
  ROUTES.map((route) => [holder, GRANTS[holder].includes(route.code) ? 'passes' : 'is refused 403 by', label(route), route] as const),
);

describe('holding one code', () => {
  it.each(CODES)('a member holding %s alone holds exactly what the catalogue grants with it', async (code) => {
    const me = await call('GET', '/api/permissions/me', tokens[code]);
    expect(me.statusCode, me.body).toBe(200);
    expect([...(me.json().permissions as string[])].sort()).toEqual([...GRANTS[code]].sort());
  });

  it.each(CELLS)('%s alone %s the guard of %s', async (holder, verdict, _label, route) => {
    const res = await call(route.method, route.url(), tokens[holder], route.payload?.());
    if (verdict === 'passes') {
      expect(res.statusCode, res.body).toBe(route.allowed.status);
      if (route.allowed.code) expect(res.json()).toMatchObject({ code: route.allowed.code });
      return;
    }
    expect(res.statusCode, res.body).toBe(403);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      status: 403,
      code: 'permission_denied',
      detail: `Requires ${route.code}`,
      permission: route.code,
      requestId: expect.any(String),
    });
  });

  it('covers every code with a route of its own, and catalog.seller_change through catalog.view', () => {
    expect(new Set(ROUTES.map((r) => r.code))).toEqual(new Set(CODES.filter((c) => c !== 'catalog.seller_change')));
    expect(CELLS.filter(([holder, verdict]) => holder === 'catalog.seller_change' && verdict === 'passes').map(([, , l]) => l)).toHaveLength(4);
  });
});

describe('catalog.seller_change', () => {
  const cases: [name: string, code: Code, method: Method, url: () => string, body: () => object][] = [
    ['creating a quote', 'quotes.create', 'POST', () => '/quotes', () => ({ lead_id: leadId, currency: 'GTQ', valid_until: '2099-12-31', lines: [LINE] })],
    ['changing a draft', 'quotes.create', 'PATCH', () => `/quotes/${ids.draftToEdit}`, () => ({})],
    ['creating an order', 'orders.create', 'POST', () => '/orders', () => ({ lead_id: leadId, currency: 'GTQ', lines: [LINE] })],
  ];
  it.each(cases)('lets %s name another seller, and is 403 seller_change_forbidden naming it without', async (_name, code, method, url, body) => {
    const db = t.database.db;
    const other = await makeMember(db, { entityId, codes: ['quotes.view'] });
    const withIt = await tokenFor(t.app, await makeMember(db, { entityId, codes: [code, 'catalog.seller_change'] }));
    const without = await tokenFor(t.app, await makeMember(db, { entityId, codes: [code] }));
    const payload = { ...body(), seller_employee_id: other.employeeId };
    const refused = await call(method, url(), without, payload);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toMatchObject({ status: 403, code: 'seller_change_forbidden', permission: 'catalog.seller_change' });
    const allowed = await call(method, url(), withIt, payload);
    expect(allowed.statusCode, allowed.body).toBeLessThan(300);
    expect(allowed.json()).toMatchObject({ seller_employee_id: other.employeeId });
  });
});
