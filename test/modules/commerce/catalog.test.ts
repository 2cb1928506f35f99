/**
 * The sales catalog from the ERP simulator (through the two-level cache) and the catalog inside a
 * conversation: search across accents, category and currency filters, paging, each entity its own
 * products; the conversation's context with the lead's orders; a product sent into the chat reaches the
 * communications simulator as an image with its caption. Another entity's conversation is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
const API_KEY = 'sim-key-catalog';
let t: TestContext;
let erp: ErpSimulator;
let comms: ProviderSimulator;
let token: string;
let otherToken: string;
let conversationId: number;

const product = (id: string, entityId: number, code: string, name: string, extra: Row = {}) => ({
  id,
  entityId,
  code,
  name,
  description: null,
  unit: 'unidad',
  category: 'General',
  images: [],
  stock: 10,
  prices: [{ currencyCode: 'GTQ', amount: '10.00' }],
  ...extra,
});

beforeAll(async () => {
  erp = await startTestErp();
  comms = await startProviderSimulator({ apiKey: API_KEY });
  t = await createTestApp({
    env: { ...erpEnv(erp), COMMUNICATIONS_BASE_URL: comms.url, COMMUNICATIONS_API_KEY: API_KEY, PUBLIC_BASE_URL: 'https://crm.example.com' },
    startQueue: true,
  });
  const db = t.database.db;
  const e1 = (await makeEntity(db, 'Tienda')).id;
  const e2 = (await makeEntity(db, 'Farmacia')).id;
  await linkEntity(db, erp, e1, 901);
  await linkEntity(db, erp, e2, 902);
  erp.data.catalogProducts.push(
    product('P-1', 901, 'CAF-500', 'Café molido 500 g', {
      description: 'Café de altura',
      category: 'Alimentos',
      images: ['https://erp.example.com/caf.jpg'],
      prices: [
        { currencyCode: 'GTQ', amount: '45.00' },
        { currencyCode: 'USD', amount: '5.90' },
      ],
    }),
    product('P-2', 901, 'TE-100', 'Té verde', { category: 'Alimentos' }),
    product('P-3', 901, 'LAP-14', 'Laptop 14"', { category: 'Equipo', prices: [{ currencyCode: 'GTQ', amount: '6499.00' }] }),
    product('P-9', 902, 'AMOX-500', 'Amoxicilina 500 mg', { category: 'Farmacia' }),
  );
  for (let i = 0; i < 60; i++) erp.data.catalogProducts.push(product(`S-${i}`, 901, `SKU-${i}`, `Artículo ${i}`, { category: 'Varios' }));
  const m = await makeMember(db, { entityId: e1, codes: ['catalog.view', 'quotes.create'] });
  erpUserFor(erp, m, [901]);
  token = (await loginWithErp(t.app, { email: m.email, password: m.password, entityId: e1 })).token;
  const o = await makeMember(db, { entityId: e2, codes: ['catalog.view', 'quotes.create'] });
  erpUserFor(erp, o, [902]);
  otherToken = (await loginWithErp(t.app, { email: o.email, password: o.password, entityId: e2 })).token;
  await makeChannelAccount(db, { entityId: e1, externalAccountId: 'PN-CAT' });
  await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: 'PN-CAT' }, { from: '50255507777', text: '¿Tienen café?' }),
  });
  await t.app.interactionsWorker.idle();
  const list = await t.app.inject({ method: 'GET', url: '/interactions/conversations', headers: bearer(token) });
  conversationId = (list.json().data as Row[])[0]!.id as number;
});
afterAll(async () => {
  await t?.close();
  await erp?.close();
  await comms?.close();
});

const get = (url: string, tk = token) => t.app.inject({ method: 'GET', url, headers: bearer(tk) });

describe('sales catalog', () => {
  it('searches across case and accents, filters by category and currency, and pages', async () => {
    const cafe = await get('/catalogs/products?q=CAFE%20altura');
    expect(cafe.statusCode, cafe.body).toBe(200);
    expect(cafe.json()).toMatchObject({
      data: [
        {
          id: 'P-1',
          code: 'CAF-500',
          prices: [
            { currency: 'GTQ', amount: '45.00' },
            { currency: 'USD', amount: '5.90' },
          ],
        },
      ],
      pagination: { total: 1 },
    });
    expect((await get('/catalogs/products?category=Alimentos')).json().data.map((p: Row) => p.code)).toEqual(['CAF-500', 'TE-100']);
    expect((await get('/catalogs/products?currency=USD')).json().data.map((p: Row) => p.code)).toEqual(['CAF-500']);
    const page = (await get('/catalogs/products?category=Varios&limit=25&offset=50')).json();
    expect(page.pagination).toEqual({ limit: 25, offset: 50, total: 60 });
    expect(page.data).toHaveLength(10);
    const again = await get('/api/catalogs/products?q=laptop');
    expect(again.headers['x-catalog-cache']).toBe('hit-memory');
  });

  it('gives each entity its own catalog', async () => {
    expect((await get('/catalogs/products', otherToken)).json().data.map((p: Row) => p.code)).toEqual(['AMOX-500']);
  });
});

describe('catalog in a conversation', () => {
  it('gives the context, the products, and sends a product as an image with its caption', async () => {
    const ctx = await get(`/interactions/conversations/${conversationId}/catalog/context`);
    expect(ctx.statusCode, ctx.body).toBe(200);
    expect(ctx.json()).toMatchObject({ conversation_id: conversationId, currency: 'GTQ', recent_orders: [], channel_type_code: 'chatapp_api' });
    expect((await get(`/interactions/conversations/${conversationId}/catalog/products?q=te%20verde`)).json().data.map((p: Row) => p.code)).toEqual(['TE-100']);
    comms.reset();
    const sent = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conversationId}/catalog/send`,
      headers: bearer(token),
      payload: { product_id: 'P-1', currency: 'USD' },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const [delivery] = await comms.waitForDeliveries(1);
    expect(delivery!.body).toMatchObject({
      type: 'image',
      image: { link: 'https://erp.example.com/caf.jpg', caption: '*Café molido 500 g* (CAF-500)\nUSD 5.90 / unidad\nCafé de altura' },
    });
    const noPrice = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conversationId}/catalog/send`,
      headers: bearer(token),
      payload: { product_id: 'P-3', currency: 'USD' },
    });
    expect(noPrice.json()).toMatchObject({ status: 422, code: 'price_not_in_currency' });
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/interactions/conversations/${conversationId}/catalog/send`,
          headers: bearer(token),
          payload: { product_id: 'P-404' },
        })
      ).statusCode,
    ).toBe(404);
  });

  it('is 404 for another entity’s conversation', async () => {
    for (const path of ['context', 'products'])
      expect((await get(`/interactions/conversations/${conversationId}/catalog/${path}`, otherToken)).statusCode).toBe(404);
    const send = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conversationId}/catalog/send`,
      headers: bearer(otherToken),
      payload: { product_id: 'P-9' },
    });
    expect(send.statusCode).toBe(404);
  });
});

describe('quote PDF', () => {
  it('renders the quote and sends it into the conversation as a document; a draft becomes sent', async () => {
    const ctx = (await get(`/interactions/conversations/${conversationId}/catalog/context`)).json<Row>();
    const quote = await t.app.inject({
      method: 'POST',
      url: '/quotes',
      headers: bearer(token),
      payload: {
        lead_id: ctx.lead_id,
        contact_id: ctx.contact_id,
        currency: 'GTQ',
        valid_until: '2099-01-01',
        lines: [{ product_code: 'CAF-500', description: 'Café molido 500 g', quantity: '2', unit_price: '45.00', tax_percent: '12' }],
      },
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const id = quote.json<Row>().id as number;
    const pdf = await get(`/quotes/${id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toContain('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    comms.reset();
    const sent = await t.app.inject({
      method: 'POST',
      url: `/quotes/${id}/send-to-conversation`,
      headers: bearer(token),
      payload: { conversation_id: conversationId },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json()).toMatchObject({ type: 'document', status: 'pending' });
    const [delivery] = await comms.waitForDeliveries(1, 20_000);
    expect(delivery!.body).toMatchObject({
      type: 'document',
      document: {
        filename: `cotizacion-${id}.pdf`,
        caption: `Cotización No. ${id}: GTQ 100.80`,
        link: expect.stringMatching(/^https:\/\/crm.example.com\/media\//),
      },
    });
    expect((await get(`/quotes/${id}`)).json<Row>().status).toBe('sent');
    const other = await t.app.inject({
      method: 'POST',
      url: `/quotes/${id}/send-to-conversation`,
      headers: bearer(otherToken),
      payload: { conversation_id: conversationId },
    });
    expect(other.statusCode).toBe(404);
  }, 40_000);

  it.each([
    ['approved', ['send', 'approve'], '2099-01-01'],
    ['rejected', ['send', 'reject'], '2099-01-01'],
    ['expired', [], '2020-01-01'],
  ] as const)('refuses to send an %s quote into the conversation with 409 invalid_transition, and sends nothing', async (status, moves, validUntil) => {
    const ctx = (await get(`/interactions/conversations/${conversationId}/catalog/context`)).json<Row>();
    const quote = await t.app.inject({
      method: 'POST',
      url: '/quotes',
      headers: bearer(token),
      payload: { lead_id: ctx.lead_id, currency: 'GTQ', valid_until: validUntil, lines: [{ description: 'Té verde', quantity: '1', unit_price: '10.00' }] },
    });
    const id = quote.json<Row>().id as number;
    for (const move of moves) expect((await t.app.inject({ method: 'POST', url: `/quotes/${id}/${move}`, headers: bearer(token) })).statusCode).toBe(200);
    const history = async () => ((await get(`/interactions/conversations/${conversationId}/history`)).json<Row>().data as Row[]).map((m) => m.id as number);
    const before = await history();
    const sent = await t.app.inject({
      method: 'POST',
      url: `/quotes/${id}/send-to-conversation`,
      headers: bearer(token),
      payload: { conversation_id: conversationId },
    });
    expect(sent.statusCode, sent.body).toBe(409);
    expect(sent.json()).toMatchObject({ status: 409, code: 'invalid_transition', action: 'send' });
    expect(await history()).toEqual(before);
    expect((await get(`/quotes/${id}`)).json<Row>().status).toBe(status);
  });
});
