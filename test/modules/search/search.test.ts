/**
 * Search (issue 51) through `GET /api/search`: each operator and their combination on what customers wrote
 * (through the webhook) and agents answered, accents and case, phone formats, e-mails and tax ids, the ranking
 * of a fixed corpus, the visibility matrix (a restricted agent never sees another's message in results,
 * counts or snippets), HTML-escaped snippets, cursor paging under inserts, tenant isolation, bad input, and
 * the history opened `around` a found message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { ALL_CONVERSATIONS, bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

interface Result {
  type: string;
  id: number;
  score: number;
  title: string;
  snippet_html: string;
  conversation_id: number | null;
  message_id: number | null;
  direction: string | null;
}
interface Page {
  data: Result[];
  pagination: { next_cursor: string | null };
}

let t: TestContext;
let e1: number;
let adminToken: string;
let agentToken: string;
let otherToken: string;
/** Message ids by a short name, conversation ids by customer. */
const m: Record<string, number> = {};
const c: Record<string, number> = {};
let leadId: number;
let groupId: number;

const get = (url: string, token = adminToken) => t.app.inject({ method: 'GET', url: `/api${url}`, headers: bearer(token) });
async function search(q: string, opts: { token?: string; types?: string; limit?: number; cursor?: string } = {}): Promise<Page> {
  const params = new URLSearchParams({ q, limit: String(opts.limit ?? 50) });
  if (opts.types) params.set('types', opts.types);
  if (opts.cursor) params.set('cursor', opts.cursor);
  const res = await get(`/search?${params.toString()}`, opts.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const messageIds = async (q: string, token = adminToken) => (await search(q, { token, types: 'message' })).data.map((r) => r.id).sort((a, b) => a - b);
const ids = (...names: string[]) => names.map((n) => m[n]!).sort((a, b) => a - b);

async function inbound(account: string, from: string, name: string, text: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: account }, { from, name, text }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
}
/** The id of the message of `text` (the webhook does not answer it). */
async function messageOf(text: string): Promise<number> {
  const { rows } = await t.database.executeSql('select id from message where text = $1', [text]);
  return Number(rows[0]!.id);
}
/** An agent's answer, stored as the send path stores a sent message. */
async function outbound(conversationId: number, text: string): Promise<number> {
  const { rows } = await t.database.executeSql(
    `insert into message (entity_id, conversation_id, direction, type, text, content, external_message_id, status, occurred_at, occurred_at_ms)
     values ($1, $2, 'outbound', 'text', $3, '{}', $4, 'sent', now(), (extract(epoch from now()) * 1000)::bigint) returning id`,
    [e1, conversationId, text, `wamid.out.${conversationId}.${text}`],
  );
  return Number(rows[0]!.id);
}

beforeAll(async () => {
  t = await createTestApp();
  e1 = (await makeEntity(t.database.db, 'Searching Company')).id;
  const e2 = (await makeEntity(t.database.db, 'Searching elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-SEARCH' });
  await makeChannelAccount(t.database.db, { entityId: e2, externalAccountId: 'PN-SEARCH-2' });
  const readAll = ['contacts.edit', 'leads.create', 'leads.edit', 'groups.create', 'groups.edit', 'labels.manage'];
  const admin = await makeMember(t.database.db, { entityId: e1, codes: [...readAll, ...ALL_CONVERSATIONS] });
  adminToken = await tokenFor(t.app, admin);
  const agent = await makeMember(t.database.db, { entityId: e1, codes: ['contacts.view'], conversations: 'restricted', name: 'Restricted agent' });
  agentToken = await tokenFor(t.app, agent);
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: [...readAll, ...ALL_CONVERSATIONS] }));

  await inbound('PN-SEARCH', '50255510001', 'José Núñez', 'Necesito la factura de noviembre, por favor');
  await inbound('PN-SEARCH', '50255510001', 'José Núñez', 'La canción <b>suena</b> & bien "fuerte" 5 < 6');
  await inbound('PN-SEARCH', '50255510002', 'María López', '¿Cuándo llega mi pedido? La factura está pendiente desde hace semanas');
  await inbound('PN-SEARCH', '50255510003', 'Pedro Gómez', 'Hola, quiero cancelar el pedido');
  await inbound('PN-SEARCH-2', '50255520001', 'Ajeno', 'factura secreta de otra empresa');
  for (const [key, chat] of [
    ['jose', '50255510001'],
    ['maria', '50255510002'],
    ['pedro', '50255510003'],
  ] as const)
    c[key] = (await waitForConversation(t.app, adminToken, chat)).id;
  m.noviembre = await messageOf('Necesito la factura de noviembre, por favor');
  m.cancion = await messageOf('La canción <b>suena</b> & bien "fuerte" 5 < 6');
  m.pendiente = await messageOf('¿Cuándo llega mi pedido? La factura está pendiente desde hace semanas');
  m.cancelar = await messageOf('Hola, quiero cancelar el pedido');
  m.enviada = await outbound(c.maria!, 'Su factura fue enviada, factura número 88');
  // The restricted agent sees José's conversation only (assigned to them).
  await t.database.db.execute(
    sql`update conversation set assignment_status = 'assigned', assigned_employee_id = ${agent.employeeId}, queue_id = null where id = ${c.jose!}`,
  );
  const label = (
    await t.app.inject({ method: 'POST', url: '/api/labels', headers: bearer(adminToken), payload: { name: 'Cliente VIP', color: '#2F80ED' } })
  ).json();
  await t.app.inject({
    method: 'POST',
    url: `/api/interactions/conversations/${c.maria}/labels`,
    headers: bearer(adminToken),
    payload: { label_ids: [label.id] },
  });
  groupId = (await t.app.inject({ method: 'POST', url: '/api/groups', headers: bearer(adminToken), payload: { name: 'Facturación Acme' } })).json().id;
  const lead = await t.app.inject({
    method: 'POST',
    url: '/api/leads',
    headers: bearer(adminToken),
    payload: { group_id: groupId, name: 'Ana Martínez', email: 'ventas@acme.com.gt', phone: '+502 5551-0009', tax_id: '1234567-8' },
  });
  expect(lead.statusCode, lead.body).toBe(201);
  leadId = lead.json().id;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('the query language on messages', () => {
  it('finds every word whatever its case and accents, stemmed, the last word also as a prefix', async () => {
    expect(await messageIds('FACTURAS')).toEqual(ids('noviembre', 'pendiente', 'enviada'));
    expect(await messageIds('cancion')).toEqual(ids('cancion'));
    expect(await messageIds('CANCIÓN bien')).toEqual(ids('cancion'));
    expect(await messageIds('pedido factu')).toEqual(ids('pendiente'));
    // Only the last word is a prefix.
    expect(await messageIds('factu pedido')).toEqual([]);
    expect(await messageIds('pedido factu ')).toEqual([]);
  });

  it('matches an exact phrase, excludes words and phrases, and combines them', async () => {
    expect(await messageIds('"factura de noviembre"')).toEqual(ids('noviembre'));
    expect(await messageIds('"noviembre factura"')).toEqual([]);
    // A stopword inside a phrase keeps its place.
    expect(await messageIds('"factura está pendiente"')).toEqual(ids('pendiente'));
    expect(await messageIds('"factura pendiente"')).toEqual([]);
    expect(await messageIds('factura -pendiente')).toEqual(ids('noviembre', 'enviada'));
    expect(await messageIds('factura -"de noviembre" -"número 88"')).toEqual(ids('pendiente'));
    expect(await messageIds('pedido "la factura" -cancelar')).toEqual(ids('pendiente'));
  });

  it('filters by sender, channel, dates and label', async () => {
    expect(await messageIds('factura from:agent')).toEqual(ids('enviada'));
    expect(await messageIds('from:customer factura')).toEqual(ids('noviembre', 'pendiente'));
    expect(await messageIds('factura channel:whatsapp')).toEqual(ids('noviembre', 'pendiente', 'enviada'));
    expect(await messageIds('factura channel:web')).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await messageIds(`factura after:${today} before:${today}`)).toEqual(ids('noviembre', 'pendiente', 'enviada'));
    expect(await messageIds('factura after:2100-01-01')).toEqual([]);
    expect(await messageIds('factura before:2000-01-01')).toEqual([]);
    expect(await messageIds('factura label:"cliente vip"')).toEqual(ids('pendiente', 'enviada'));
    expect(await messageIds('factura label:"Cliente VIP" from:customer -semanas')).toEqual([]);
  });
});

describe('records', () => {
  const find = async (q: string, types = 'contact,lead,group') => (await search(q, { types })).data.map((r) => `${r.type}:${r.title}`);

  it('finds contacts, leads and groups by part of a name without its accents, any case', async () => {
    // The intake named the customer's new lead and group after them too.
    expect(await find('nunez')).toEqual(['contact:José Núñez', 'group:José Núñez', 'lead:José Núñez']);
    expect(await find('MARTIN')).toEqual(['lead:Ana Martínez']);
    expect(await find('facturacion')).toEqual(['group:Facturación Acme']);
  });

  it('finds phones by their digits in any format, e-mails and tax ids exactly and by prefix', async () => {
    for (const q of ['+502 5551-0009', '(502) 55510009', '5551 0009', '0009']) expect(await find(q, 'lead'), q).toEqual(['lead:Ana Martínez']);
    // A contact by its WhatsApp number, however it is written.
    expect(await find('5551-0001', 'contact')).toEqual(['contact:José Núñez']);
    expect(await find('ventas@acme.com.gt', 'lead')).toEqual(['lead:Ana Martínez']);
    expect(await find('ventas@ac', 'lead')).toEqual(['lead:Ana Martínez']);
    expect(await find('1234567-8', 'lead')).toEqual(['lead:Ana Martínez']);
    expect(await find('123456', 'lead')).toEqual(['lead:Ana Martínez']);
    expect(await find('ventas -acme', 'lead')).toEqual([]);
  });

  it('carries the ids to open what was found', async () => {
    const [lead] = (await search('martinez', { types: 'lead' })).data;
    expect(lead).toMatchObject({ id: leadId, group_id: groupId, lead_id: leadId, conversation_id: null });
  });
});

describe('ranking', () => {
  it('puts records first, then messages by how densely they hold the words, the newest first on a tie', async () => {
    const page = await search('factura');
    expect(page.data.map((r) => `${r.type}:${r.id}`)).toEqual([`group:${groupId}`, `message:${m.enviada}`, `message:${m.noviembre}`, `message:${m.pendiente}`]);
    const scores = page.data.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThanOrEqual(0.5);
    expect(scores[1]).toBeLessThan(0.5);
  });
});

describe('visibility', () => {
  it("never shows a restricted agent another's message, in results, counts or snippets", async () => {
    const page = await search('factura pedido cancelar nunez lopez gomez', { token: agentToken });
    expect(page.data).toEqual([]);
    const mine = await search('factura', { token: agentToken });
    expect(mine.data.map((r) => `${r.type}:${r.id}`)).toEqual([`message:${m.noviembre}`]);
    for (const q of ['pendiente', 'enviada', 'cancelar', '"factura está pendiente"']) expect(await messageIds(q, agentToken), q).toEqual([]);
    // Conversations by name or number: only the agent's.
    const conversations = (await search('5551000', { token: agentToken, types: 'conversation' })).data;
    expect(conversations.map((r) => r.id)).toEqual([c.jose]);
    expect((await search('5551000', { types: 'conversation' })).data.map((r) => r.id).sort()).toEqual([c.jose, c.maria, c.pedro].sort());
    // Records under their list codes: contacts.view yes, leads.view and groups.view no.
    expect((await search('acme', { token: agentToken })).data).toEqual([]);
    expect((await search('lopez', { token: agentToken, types: 'contact' })).data.map((r) => r.title)).toEqual(['María López']);
  });

  it('keeps every entity to itself', async () => {
    expect((await search('secreta factura', {})).data).toEqual([]);
    const theirs = await search('factura', { token: otherToken });
    expect(theirs.data.map((r) => r.snippet_html)).toEqual(['<mark>factura</mark> secreta de otra empresa']);
    expect((await search('nunez', { token: otherToken })).data).toEqual([]);
  });
});

describe('snippets', () => {
  it('escape what was written and mark what matched', async () => {
    const [hit] = (await search('cancion')).data;
    expect(hit).toMatchObject({ type: 'message', id: m.cancion, conversation_id: c.jose, message_id: m.cancion, direction: 'inbound', title: 'José Núñez' });
    // The text parser drops what looks like markup; the rest is escaped, and only the marks are elements.
    expect(hit!.snippet_html).toBe('La <mark>canción</mark>  suena  &amp; bien &quot;fuerte&quot; 5 &lt; 6');
    expect(hit!.snippet_html.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
    const [contact] = (await search('nunez', { types: 'contact' })).data;
    expect(contact!.snippet_html).toBe('José <mark>Núñez</mark>');
  });
});

describe('paging', () => {
  it('reads every hit once, page by page, while new messages arrive', async () => {
    const all = (await search('factura')).data.map((r) => `${r.type}:${r.id}`);
    const seen: string[] = [];
    let cursor: string | undefined;
    let inserted = 0;
    do {
      const page = await search('factura', { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((r) => `${r.type}:${r.id}`));
      cursor = page.pagination.next_cursor ?? undefined;
      // A new matching message between pages: it may or may not show, nothing else moves.
      if (inserted++ < 2) await outbound(c.maria!, `Otra factura ${inserted}`);
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(all.every((id) => seen.includes(id))).toBe(true);
  });
});

describe('the history around a found message', () => {
  it('opens the conversation at that message, with newer ones above it and older ones after', async () => {
    const res = await get(`/interactions/conversations/${c.jose}/history?around=${m.noviembre}&limit=2`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((x: { id: number }) => x.id)).toEqual([m.cancion, m.noviembre]);
    expect((await get(`/interactions/conversations/${c.jose}/history?around=${m.pendiente}`)).statusCode).toBe(404);
    expect((await get(`/interactions/conversations/${c.maria}/history?around=${m.pendiente}`, agentToken)).statusCode).toBe(404);
  });
});

describe('bad input', () => {
  it.each([
    ['', 'query_too_short'],
    ['a', 'query_too_short'],
    ['x'.repeat(501), 'query_too_long'],
    ['"factura de', 'unbalanced_quotes'],
    ['-factura channel:whatsapp', 'no_search_terms'],
    ['after:ayer factura', 'invalid_filter'],
    ['label:inexistente factura', 'invalid_filter'],
  ])('refuses %j with 400 %s naming the query', async (q, code) => {
    const res = await get(`/search?q=${encodeURIComponent(q)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code, errors: [{ field: '/querystring/q' }] });
  });

  it('refuses a foreign cursor, an unknown type and a missing query', async () => {
    expect((await get('/search?q=factura&cursor=bm9wZQ')).json()).toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect((await get('/search?q=factura&types=invoice')).json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((await get('/search')).json()).toMatchObject({ status: 400, code: 'validation_failed' });
  });
});
