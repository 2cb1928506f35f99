/** The inbox as agents use it: filters by status, assignee, queue, channel and text; tab counts; stable cursor pages. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { waitForConversation } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { conversation, routingQueue } from '../../../src/modules/interactions/model/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
let t: TestContext;
let me: Member;
let other: Member;
let token: string;
let otherEntityToken: string;
let queueId: number;
const ids: Record<string, number> = {};
let timestamp = 1_770_000_000;

const inbound = async (account: string, from: string, text: string, name: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: account }, { from, text, name, timestamp: ++timestamp }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const post = (url: string, payload?: object) => t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
const get = async (url: string, tk = token) => {
  const res = await t.app.inject({ method: 'GET', url, headers: bearer(tk) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const chats = async (query: string, tk = token) =>
  ((await get(`/interactions/conversations?${query}`, tk)).data as Row[]).map((c) => c.external_chat_id as string).sort();

// Six conversations: [chat, sender name, last text, status, assignee].
const SETUP = [
  ['50255600001', 'Ana Pérez', 'precio del modelo X', 'resolved', 'me'],
  ['50255600002', 'Bruno Díaz', 'gracias', 'pending', 'me'],
  ['50255600003', 'Carla Ruiz', 'cotización urgente', 'snoozed', 'other'],
  ['50255600004', 'Diego Soto', 'hola', 'open', 'queue'],
  ['50255600005', 'Elena Mora', 'PRECIO por favor', 'open', null],
  ['50255600006', 'Fabio Gil', 'buenas', 'resolved', null],
] as const;

beforeAll(async () => {
  t = await createTestApp();
  const e1 = (await makeEntity(t.database.db, 'Inbox')).id;
  const e2 = (await makeEntity(t.database.db, 'Other')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-IN' });
  await makeChannelAccount(t.database.db, { entityId: e2, externalAccountId: 'PN-OUT' });
  me = await makeMember(t.database.db, { entityId: e1, codes: ['cartera.seller_assignment'] });
  other = await makeMember(t.database.db, { entityId: e1 });
  token = await tokenFor(t.app, me);
  otherEntityToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2 }));
  for (const [chat, name, text] of SETUP) {
    await inbound('PN-IN', chat, text, name);
    ids[chat] = (await waitForConversation(t.app, token, chat)).id;
  }
  await inbound('PN-OUT', '50255600001', 'precio', 'Ana Pérez');
  const [queue] = await t.database.db.insert(routingQueue).values({ entityId: e1, name: 'Ventas' }).returning();
  queueId = queue!.id;
  for (const [chat, , , status, assignee] of SETUP) {
    const id = ids[chat]!;
    if (assignee === 'me' || assignee === 'other')
      expect((await post(`/interactions/conversations/${id}/assign`, { employee_id: assignee === 'me' ? me.employeeId : other.employeeId })).statusCode).toBe(
        200,
      );
    if (assignee === 'queue')
      await t.database.db.update(conversation).set({ queueId, assignmentStatus: 'queued', queuedAt: new Date() }).where(eq(conversation.id, id));
    if (status === 'snoozed') await post(`/interactions/conversations/${id}/snooze`, { until: new Date(Date.now() + 3_600_000).toISOString() });
    else if (status !== 'open') expect((await post(`/interactions/conversations/${id}/${status === 'resolved' ? 'resolve' : 'pending'}`)).statusCode).toBe(200);
  }
});
afterAll(async () => t.close());

describe('inbox filters', () => {
  it('filters by one or several statuses', async () => {
    expect(await chats('status=open')).toEqual(['50255600004', '50255600005']);
    expect(await chats('status=resolved&status=pending')).toEqual(['50255600001', '50255600002', '50255600006']);
    expect(await chats('status=snoozed&filter=mine')).toEqual([]);
  });

  it('filters by assignee (me, none, an employee) and routing queue', async () => {
    expect(await chats('assignee=me')).toEqual(['50255600001', '50255600002']);
    expect(await chats('assignee=none')).toEqual(['50255600004', '50255600005', '50255600006']);
    expect(await chats(`assignee=${other.employeeId}`)).toEqual(['50255600003']);
    expect(await chats(`queue_id=${queueId}`)).toEqual(['50255600004']);
    expect(await chats('assignee=me&status=pending')).toEqual(['50255600002']);
  });

  it("searches the contact's name, number and last message, case-insensitively, within the entity", async () => {
    expect(await chats('q=precio')).toEqual(['50255600001', '50255600005']);
    expect(await chats('q=carla')).toEqual(['50255600003']);
    expect(await chats('q=600004')).toEqual(['50255600004']);
    expect(await chats('q=100%25')).toEqual([]);
    expect(await chats('q=precio', otherEntityToken)).toEqual(['50255600001']);
    expect(await chats('q=precio&status=open&channel_type_code=chatapp_api')).toEqual(['50255600005']);
    expect(await chats('channel_type_code=social_dm')).toEqual([]);
  });

  it('answers 400 for an unknown status, assignee or queue id', async () => {
    for (const query of ['status=closed', 'assignee=someone', 'assignee=0', 'queue_id=abc']) {
      const res = await t.app.inject({ method: 'GET', url: `/interactions/conversations?${query}`, headers: bearer(token) });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().code, query).toBe('validation_failed');
    }
  });
});

describe('GET /interactions/conversations/counts', () => {
  it('counts mine, unassigned and all by status, under the same filters as the list', async () => {
    expect(await get('/interactions/conversations/counts')).toEqual({
      mine: { open: 0, pending: 1, snoozed: 0, resolved: 1 },
      unassigned: { open: 2, pending: 0, snoozed: 0, resolved: 1 },
      all: { open: 2, pending: 1, snoozed: 1, resolved: 2 },
    });
    expect(await get('/interactions/conversations/counts?q=precio')).toEqual({
      mine: { open: 0, pending: 0, snoozed: 0, resolved: 1 },
      unassigned: { open: 1, pending: 0, snoozed: 0, resolved: 0 },
      all: { open: 1, pending: 0, snoozed: 0, resolved: 1 },
    });
    expect((await get(`/interactions/conversations/counts?queue_id=${queueId}`)).all).toEqual({ open: 1, pending: 0, snoozed: 0, resolved: 0 });
  });

  it("never counts another entity's conversations", async () => {
    expect(await get('/interactions/conversations/counts', otherEntityToken)).toEqual({
      mine: { open: 0, pending: 0, snoozed: 0, resolved: 0 },
      unassigned: { open: 1, pending: 0, snoozed: 0, resolved: 0 },
      all: { open: 1, pending: 0, snoozed: 0, resolved: 0 },
    });
  });
});

describe('cursor pagination under concurrent changes', () => {
  it('never repeats or skips a conversation that did not change while pages were read', async () => {
    const chatsOf = (page: Row) => (page.data as Row[]).map((c) => c.external_chat_id as string);
    const before = (await get('/interactions/conversations?limit=100')).data.map((c: Row) => c.external_chat_id as string);
    for (let i = 0; i < 8; i++) await inbound('PN-IN', `5025561000${i}`, `mensaje ${i}`, `Cliente ${i}`);
    const all = (await get('/interactions/conversations?limit=100')).data.map((c: Row) => c.external_chat_id as string);
    expect(all).toHaveLength(before.length + 8);
    const page1 = await get('/interactions/conversations?limit=4');
    const seen = chatsOf(page1);
    // Between pages: a new conversation arrives, one of page 1 and one not read yet get new messages (they
    // move to the top), and one not read yet is resolved (its activity, the sort key, is unchanged).
    const notRead = all.filter((c: string) => !seen.includes(c));
    const changed = new Set(['50255619999', seen[1]!, notRead[2]!]);
    await inbound('PN-IN', '50255619999', 'nuevo', 'Nuevo');
    await inbound('PN-IN', seen[1]!, 'otra vez', 'x');
    await inbound('PN-IN', notRead[2], 'de nuevo', 'y');
    await post(`/interactions/conversations/${ids[notRead[4]!] ?? (await waitForConversation(t.app, token, notRead[4])).id}/resolve`);
    let cursor = page1.pagination.next_cursor as string | null;
    while (cursor !== null) {
      const page = await get(`/interactions/conversations?limit=4&cursor=${cursor}`);
      seen.push(...chatsOf(page));
      cursor = page.pagination.next_cursor;
    }
    const unchanged = all.filter((c: string) => !changed.has(c));
    for (const c of unchanged)
      expect(
        seen.filter((s) => s === c),
        c,
      ).toHaveLength(1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('reads every conversation once when activities tie to the microsecond or are missing', async () => {
    const all = (await get('/interactions/conversations?limit=100')).data as Row[];
    const tied = all.slice(2, 7).map((c) => c.id as number);
    await t.database.db
      .update(conversation)
      .set({ lastMessageAt: sql`timestamptz '2026-01-01 00:00:00.123456+00'` })
      .where(inArray(conversation.id, tied));
    await t.database.db
      .update(conversation)
      .set({ lastMessageAt: sql`timestamptz '2026-01-01 00:00:00.123457+00'` })
      .where(eq(conversation.id, all[8]!.id));
    await t.database.db
      .update(conversation)
      .set({ lastMessageAt: null })
      .where(inArray(conversation.id, [all[9]!.id, all[10]!.id]));
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/interactions/conversations?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...(page.data as Row[]).map((c) => c.id as number));
      cursor = page.pagination.next_cursor;
    } while (cursor !== null);
    expect(seen.slice(0, 2).sort()).toEqual([all[9]!.id, all[10]!.id].sort());
    expect([...seen].sort()).toEqual(all.map((c) => c.id as number).sort());
    const tiedAt = seen.indexOf(all[8]!.id);
    expect(seen.slice(tiedAt + 1, tiedAt + 6)).toEqual([...tied].sort((a, b) => b - a));
  });
});
