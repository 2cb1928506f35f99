import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { createTestApp, TEST_JWT_SECRET, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { captureEvents, connectSocket, listen, waitFor, type ReceivedEvent } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

type Row = Record<string, unknown>;
let t: TestContext;
let baseUrl: string;
let e1: number;
let e2: number;
let member: Member;
let token: string;
let assigner: Member;
let otherToken: string;

const send = async (phoneNumberId: string, from: string, text: string, timestamp: number) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId }, { from, text, timestamp }),
  });
  expect(res.statusCode).toBe(200);
};
const get = (url: string, tk = token) => t.app.inject({ method: 'GET', url, headers: bearer(tk) });

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t.app);
  t.app.ctx.realtime.configure({ authCheckIntervalMs: 100 });
  e1 = (await makeEntity(t.database.db, 'One')).id;
  e2 = (await makeEntity(t.database.db, 'Two')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-1' });
  await makeChannelAccount(t.database.db, { entityId: e2, externalAccountId: 'PN-2' });
  member = await makeMember(t.database.db, { entityId: e1 });
  token = await tokenFor(t.app, member);
  assigner = await makeMember(t.database.db, { entityId: e1, codes: ['cartera.seller_assignment'] });
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2 }));
  for (let i = 0; i < 5; i++) await send('PN-1', `5025558000${i}`, `hello ${i}${i === 3 ? ' pedido urgente' : ''}`, 1_760_000_000 + i);
  for (let i = 0; i < 4; i++) await send('PN-1', '50255580000', `more ${i}`, 1_760_000_100 + i);
  await send('PN-2', '50255589999', 'other entity', 1_760_000_000);
  await t.app.interactionsWorker.idle();
});
afterAll(async () => t.close());

describe('GET /interactions/conversations', () => {
  it('lists the entity inbox newest first with cursor pagination and never another entity', async () => {
    const first = await get('/interactions/conversations?limit=2');
    expect(first.statusCode).toBe(200);
    expect(first.json().data.map((c: Row) => c.external_chat_id)).toEqual(['50255580000', '50255580004']);
    const second = await get(`/api/interactions/conversations?limit=2&cursor=${first.json().pagination.next_cursor}`);
    expect(second.json().data.map((c: Row) => c.external_chat_id)).toEqual(['50255580003', '50255580002']);
    const third = await get(`/interactions/conversations?limit=2&cursor=${second.json().pagination.next_cursor}`);
    expect(third.json().data.map((c: Row) => c.external_chat_id)).toEqual(['50255580001']);
    expect(third.json().pagination.next_cursor).toBeNull();
    expect((await get('/interactions/conversations', otherToken)).json().data.map((c: Row) => c.external_chat_id)).toEqual(['50255589999']);
  });

  it('filters by text, unread, follow-up, channel and mine/unassigned', async () => {
    expect((await get('/interactions/conversations?q=urgente')).json().data.map((c: Row) => c.external_chat_id)).toEqual(['50255580003']);
    expect((await get('/interactions/conversations?channel_type_code=social_dm')).json().data).toEqual([]);
    expect((await get('/interactions/conversations?filter=unassigned')).json().data).toHaveLength(5);
    expect((await get('/interactions/conversations?filter=mine')).json().data).toHaveLength(0);
    const list = (await get('/interactions/conversations')).json().data;
    const target = list.find((c: Row) => c.external_chat_id === '50255580001');
    expect((await t.app.inject({ method: 'POST', url: `/interactions/conversations/${target.id}/read`, headers: bearer(token) })).json().unread_count).toBe(0);
    expect((await get('/interactions/conversations?unread=false')).json().data.map((c: Row) => c.id)).toEqual([target.id]);
    await t.app.inject({ method: 'POST', url: `/interactions/conversations/${target.id}/follow-up`, headers: bearer(token), payload: { follow_up: true } });
    expect((await get('/interactions/conversations?follow_up=true')).json().data.map((c: Row) => c.id)).toEqual([target.id]);
  });

  it('answers 400 for a bad cursor or filter and 401 without a token', async () => {
    expect((await get('/interactions/conversations?cursor=zzz')).json().code).toBe('invalid_cursor');
    expect((await get('/interactions/conversations?filter=everything')).json().code).toBe('validation_failed');
    expect((await t.app.inject({ method: 'GET', url: '/interactions/conversations' })).statusCode).toBe(401);
  });
});

describe('conversation detail, history and changes', () => {
  it('returns the history newest first with cursor pagination', async () => {
    const conv = (await get('/interactions/conversations?q=more')).json().data[0];
    const page1 = await get(`/interactions/conversations/${conv.id}/history?limit=3`);
    expect(page1.json().data.map((m: Row) => m.text)).toEqual(['more 3', 'more 2', 'more 1']);
    const page2 = await get(`/interactions/conversations/${conv.id}/history?limit=3&cursor=${page1.json().pagination.next_cursor}`);
    expect(page2.json().data.map((m: Row) => m.text)).toEqual(['more 0', 'hello 0']);
    expect(page2.json().pagination.next_cursor).toBeNull();
  });

  it('answers 404 not_found for another entity conversation on every route', async () => {
    const foreign = (await get('/interactions/conversations', otherToken)).json().data[0].id;
    for (const [method, url, payload] of [
      ['GET', `/interactions/conversations/${foreign}`],
      ['GET', `/interactions/conversations/${foreign}/history`],
      ['PATCH', `/interactions/conversations/${foreign}/workspace-notes`, { workspace_notes: 'x' }],
      ['POST', `/interactions/conversations/${foreign}/read`],
      ['POST', `/interactions/conversations/${foreign}/follow-up`, { follow_up: true }],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
  });

  it('saves workspace notes and pushes the change to the entity sockets', async () => {
    const { socket, events } = await connectSocket(baseUrl, { token });
    try {
      const conv = (await get('/interactions/conversations')).json().data[0];
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/interactions/conversations/${conv.id}/workspace-notes`,
        headers: bearer(token),
        payload: { workspace_notes: 'Call back on Monday' },
      });
      expect(res.json().workspace_notes).toBe('Call back on Monday');
      const ev = await waitFor(() => events.find((e) => e.name === 'interaction.conversation.updated'));
      expect(ev.payload.conversation).toMatchObject({ id: conv.id, workspace_notes: 'Call back on Monday' });
      const bad = await t.app.inject({ method: 'PATCH', url: `/interactions/conversations/${conv.id}/workspace-notes`, headers: bearer(token), payload: {} });
      expect(bad.json().code).toBe('validation_failed');
    } finally {
      socket.disconnect();
    }
  });

  it('assigns and unassigns with cartera.seller_assignment and emits conversation events', async () => {
    const seen = captureEvents(t.app, ['conversation.assigned', 'conversation.unassigned']);
    const conv = (await get('/interactions/conversations')).json().data[1];
    const denied = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/assign`,
      headers: bearer(token),
      payload: { employee_id: member.employeeId },
    });
    expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: 'cartera.seller_assignment' });
    const assignerToken = await tokenFor(t.app, assigner);
    const ok = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/assign`,
      headers: bearer(assignerToken),
      payload: { employee_id: member.employeeId },
    });
    expect(ok.json()).toMatchObject({ assignment_status: 'assigned', assigned_employee_id: member.employeeId });
    expect((await get('/interactions/conversations?filter=mine')).json().data.map((c: Row) => c.id)).toEqual([conv.id]);
    const un = await t.app.inject({ method: 'POST', url: `/interactions/conversations/${conv.id}/unassign`, headers: bearer(assignerToken) });
    expect(un.json().assignment_status).toBe('unassigned');
    expect(seen.map((e) => [e.name, e.payload.employeeId, e.payload.via])).toEqual([
      ['conversation.assigned', member.employeeId, 'manual'],
      ['conversation.unassigned', member.employeeId, 'manual'],
    ]);
  });
});

describe('realtime gateway', () => {
  it('accepts the JWT from auth.token, the Authorization header and the token query parameter', async () => {
    for (const auth of [{ token }, { header: token }, { query: token }]) {
      const { socket, ready } = await connectSocket(baseUrl, auth);
      expect(ready).toMatchObject({ entity_id: e1, user_id: member.userId });
      socket.disconnect();
    }
  });

  it('refuses a handshake without a valid token', async () => {
    await expect(connectSocket(baseUrl, {})).rejects.toMatchObject({ data: { code: 'unauthenticated' } });
    await expect(connectSocket(baseUrl, { token: 'nope' })).rejects.toMatchObject({ data: { code: 'invalid_token' } });
  });

  it("never delivers entity 2's events to a socket of entity 1, even when it asks to subscribe to them", async () => {
    const one = await connectSocket(baseUrl, { token });
    const two = await connectSocket(baseUrl, { token: otherToken });
    try {
      const foreign = (await get('/interactions/conversations', otherToken)).json().data[0];
      const refused = await one.socket.emitWithAck('interaction.chat.subscribe', { entity_id: e2, external_chat_id: foreign.external_chat_id });
      expect(refused).toEqual({ ok: false, error: 'entity_not_allowed' });
      const joined = await one.socket.emitWithAck('interaction.chat.subscribe', { external_chat_id: foreign.external_chat_id, conversation_id: foreign.id });
      expect(joined.ok).toBe(true);
      await send('PN-2', foreign.external_chat_id, 'secret of entity 2', 1_760_000_500);
      await waitFor(() => two.events.find((e) => e.name === 'interaction.message.created'));
      await send('PN-1', '50255580001', 'for entity 1', 1_760_000_501);
      await waitFor(() => one.events.find((e) => e.name === 'interaction.message.created'));
      expect(JSON.stringify(one.events)).not.toContain('secret of entity 2');
    } finally {
      one.socket.disconnect();
      two.socket.disconnect();
    }
  });

  it('gives a socket of scope subscriptions only the chats it subscribes to, and refuses an unknown scope', async () => {
    const inbox = await connectSocket(baseUrl, { token });
    const chatWindow = await connectSocket(baseUrl, { token, scope: 'subscriptions' });
    try {
      expect(await chatWindow.socket.emitWithAck('interaction.chat.subscribe', { external_chat_id: '50255580002' })).toMatchObject({ ok: true });
      await send('PN-1', '50255580001', 'not for the chat window', 1_760_000_600);
      await send('PN-1', '50255580002', 'for the chat window', 1_760_000_601);
      const texts = (events: ReceivedEvent[]) => events.filter((e) => e.name === 'interaction.message.created').map((e) => e.payload.message.text as string);
      await waitFor(() => texts(inbox.events).length >= 2 || undefined);
      await waitFor(() => texts(chatWindow.events).length >= 1 || undefined);
      // Two chats are projected independently: their order on the socket is not guaranteed, only each chat's own.
      expect(texts(inbox.events).sort()).toEqual(['for the chat window', 'not for the chat window']);
      expect(texts(chatWindow.events)).toEqual(['for the chat window']);
      expect(chatWindow.events.every((e) => e.name === 'interaction.ready' || JSON.stringify(e.payload).includes('50255580002'))).toBe(true);
    } finally {
      inbox.socket.disconnect();
      chatWindow.socket.disconnect();
    }
    await expect(connectSocket(baseUrl, { token, scope: 'everything' })).rejects.toMatchObject({ data: { code: 'invalid_scope' } });
  });

  it('keeps a socket that connects while the membership check is running', async () => {
    // The check's answer names the members asked: a socket that connected meanwhile is not in it, and was once
    // taken for a revoked member and disconnected right after its handshake.
    t.app.ctx.realtime.configure({ authCheckIntervalMs: 5 });
    const members = await Promise.all(Array.from({ length: 12 }, () => makeMember(t.database.db, { entityId: e1 })));
    const tokens = await Promise.all(members.map((m) => tokenFor(t.app, m)));
    const sockets: Awaited<ReturnType<typeof connectSocket>>[] = [];
    try {
      for (let round = 0; round < 3; round++) sockets.push(...(await Promise.all(tokens.map((tk) => connectSocket(baseUrl, { token: tk })))));
      await new Promise((r) => setTimeout(r, 300)); // dozens more checks of every socket
      expect(sockets.filter((s) => !s.socket.connected).map((s) => s.events.map((e) => e.name))).toEqual([]);
    } finally {
      t.app.ctx.realtime.configure({ authCheckIntervalMs: 100 });
      for (const s of sockets) s.socket.disconnect();
    }
  });

  it('disconnects a socket whose token expires or whose user loses membership', async () => {
    const claims = decodeJwt(token);
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await new SignJWT({ ...claims, iat: now, exp: now + 2 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const disconnected = (s: Awaited<ReturnType<typeof connectSocket>>) =>
      new Promise<void>((resolve) => (s.socket.connected ? s.socket.on('disconnect', () => resolve()) : resolve()));
    const expiring = await connectSocket(baseUrl, { token: shortLived });
    const expiringGone = disconnected(expiring);
    const leaver = await makeMember(t.database.db, { entityId: e1 });
    const leaving = await connectSocket(baseUrl, { token: await tokenFor(t.app, leaver) });
    const gone = [expiringGone, disconnected(leaving)];
    await t.database.executeSql('update employee set is_active = false where id = $1', [leaver.employeeId]);
    await Promise.all(gone);
    expect(expiring.events.find((e) => e.name === 'interaction.session.expired')?.payload).toEqual({ reason: 'token_expired' });
    expect(leaving.events.find((e) => e.name === 'interaction.session.expired')?.payload).toEqual({ reason: 'membership_revoked' });
  });
});
