/**
 * The notification centre (issue 50): notifications from assignments and mentions, pushed to the employee's own
 * sockets only; exactly once per cause however often the cause is delivered (in process, the durable job, repeats);
 * unread counts under concurrent reads; an item whose conversation the employee lost stays, unavailable;
 * preferences; another employee's or entity's notification is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Socket } from 'socket.io-client';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { connectSocket, listen, waitFor, waitForConversation, type ReceivedEvent } from '../../helpers/interactions.js';
import { chatOf, makeWebAccount, newVisitor, visitorRequest } from '../../helpers/web-visitor.js';
import { queryRows } from '../../../src/db/client.js';

let t: TestContext;
let baseUrl: string;
let conversationId: number;
let admin: { member: Member; token: string };
let agent: { member: Member; token: string; events: ReceivedEvent[] };
let supervisorEvents: ReceivedEvent[];
let foreignToken: string;
const sockets: Socket[] = [];

const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url: `/api${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
const unread = async (token = agent.token) => (await call('GET', '/notifications/unread-count', token)).json().unread as number;
const stored = async (kind: string) =>
  (
    await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from notification where kind = ${kind} and employee_id = ${agent.member.employeeId}`,
    )
  )[0]!.n;

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  baseUrl = await listen(t.app);
  const db = t.database.db;
  const entity = await makeEntity(db);
  const other = await makeEntity(db);
  const adminMember = await makeMember(db, {
    entityId: entity.id,
    codes: ['entity_channel_accounts.create', 'entity_channel_accounts.edit', 'cartera.seller_assignment'],
  });
  admin = { member: adminMember, token: await tokenFor(t.app, adminMember) };
  const agentMember = await makeMember(db, { entityId: entity.id, conversations: 'restricted' });
  const agentToken = await tokenFor(t.app, agentMember);
  const supervisor = await makeMember(db, { entityId: entity.id, codes: ['conversations.view_all'], conversations: 'restricted' });
  foreignToken = await tokenFor(t.app, await makeMember(db, { entityId: other.id }));
  const agentSocket = await connectSocket(baseUrl, { token: agentToken });
  const supervisorSocket = await connectSocket(baseUrl, { token: await tokenFor(t.app, supervisor) });
  sockets.push(agentSocket.socket, supervisorSocket.socket);
  agent = { member: agentMember, token: agentToken, events: agentSocket.events };
  supervisorEvents = supervisorSocket.events;
  const site = await makeWebAccount(t.app, admin.token);
  const visitor = await newVisitor(t.app, site.websiteToken);
  await visitorRequest(t.app, site.websiteToken, visitor.visitor_token, { method: 'POST', path: '/messages', payload: { text: 'Necesito ayuda' } });
  conversationId = (await waitForConversation(t.app, admin.token, chatOf(visitor.visitor_token))).id;
}, 60_000);
afterAll(async () => {
  for (const s of sockets) s.close();
  await t?.close();
});

describe('notifications from their causes', () => {
  it('an assignment notifies the assignee on their own sockets only, once, however often its event is delivered', async () => {
    const assigned = await call('POST', `/interactions/conversations/${conversationId}/assign`, admin.token, { employee_id: agent.member.employeeId });
    expect(assigned.statusCode).toBe(200);
    const pushed = await waitFor(() => agent.events.find((e) => e.name === 'interaction.notification.created'));
    expect(pushed.payload.notification).toMatchObject({
      kind: 'conversation_assigned',
      conversation_id: conversationId,
      available: true,
      actor_employee_id: admin.member.employeeId,
      read_at: null,
    });
    // The durable consumer's job for the same event ran too (or is about to): it stores nothing more.
    await waitFor(async () => {
      const [job] = await queryRows<{ state: string }>(t.database.db, sql`select state from pgboss.job where name = 'conversation.assigned:notifications'`);
      return job?.state === 'completed';
    }, 15_000);
    const [event] = await queryRows<{ data: Record<string, unknown> }>(
      t.database.db,
      sql`select data from pgboss.job where name = 'conversation.assigned:notifications'`,
    );
    // The same cause delivered again, five times at once (another instance, a retried job): still one.
    await Promise.all(Array.from({ length: 5 }, () => t.app.ctx.events.deliver('conversation.assigned', event!.data as never, { durableEnqueued: true })));
    expect(await stored('conversation_assigned')).toBe(1);
    expect(agent.events.filter((e) => e.name === 'interaction.notification.created')).toHaveLength(1);
    expect(supervisorEvents.some((e) => e.name === 'interaction.notification.created')).toBe(false);
    const list = (await call('GET', '/notifications', agent.token)).json();
    expect(list.data).toEqual([pushed.payload.notification]);
    expect(await unread()).toBe(1);
  });

  it('a mention notifies the mentioned (never the author); an edit that mentions them again notifies nobody twice', async () => {
    const note = await call('POST', `/interactions/conversations/${conversationId}/notes`, admin.token, {
      body: `@[employee:${agent.member.employeeId}] ¿lo ves? @[employee:${admin.member.employeeId}]`,
    });
    expect(note.statusCode).toBe(201);
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.notification.created' && e.payload.notification.kind === 'mentioned'));
    const edit = await call('PUT', '/notifications/preferences', admin.token, { preferences: [{ kind: 'mentioned', in_app: true }] });
    expect(edit.statusCode).toBe(200);
    const again = await t.app.inject({
      method: 'PATCH',
      url: `/api/interactions/conversations/${conversationId}/notes/${note.json().id}`,
      headers: bearer(admin.token),
      payload: { body: `@[employee:${agent.member.employeeId}] ahora sí` },
    });
    expect(again.statusCode).toBe(200);
    expect(await stored('mentioned')).toBe(1);
    expect((await call('GET', '/notifications', admin.token)).json().data).toEqual([]);
    const [mention] = (await call('GET', '/notifications?limit=1', agent.token)).json().data;
    expect(mention).toMatchObject({ kind: 'mentioned', data: { note_id: note.json().id } });
  });

  it('an employee who turned a kind off does not receive it', async () => {
    const off = await call('PUT', '/notifications/preferences', agent.token, { preferences: [{ kind: 'mentioned', in_app: false }] });
    expect(off.json().data).toContainEqual({ kind: 'mentioned', in_app: false });
    await call('POST', `/interactions/conversations/${conversationId}/notes`, admin.token, { body: `@[employee:${agent.member.employeeId}] otra` });
    await call('PUT', '/notifications/preferences', agent.token, { preferences: [{ kind: 'mentioned', in_app: true }] });
    const on = (
      await call('POST', `/interactions/conversations/${conversationId}/notes`, admin.token, { body: `@[employee:${agent.member.employeeId}] y esta` })
    ).json();
    // Notes are handled in order: once the later one's notification arrived, the earlier one's would have.
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.notification.created' && e.payload.notification.data.note_id === on.id));
    expect(await stored('mentioned')).toBe(2);
  });
});

describe('reading', () => {
  it('keeps the unread count exact under concurrent reads of the same and of all notifications, and pages newest first', async () => {
    for (let i = 0; i < 6; i++)
      await call('POST', `/interactions/conversations/${conversationId}/notes`, admin.token, { body: `@[employee:${agent.member.employeeId}] #${i}` });
    await waitFor(async () => (await stored('mentioned')) === 8);
    expect(await unread()).toBe(9);
    const first = (await call('GET', '/notifications?limit=3', agent.token)).json();
    const second = (await call('GET', `/notifications?limit=3&cursor=${first.pagination.next_cursor}`, agent.token)).json();
    const ids = [...first.data, ...second.data].map((n: { id: number }) => n.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(6);
    const target = ids[0]!;
    const reads = await Promise.all(Array.from({ length: 8 }, () => call('POST', `/notifications/${target}/read`, agent.token)));
    expect(reads.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(reads.map((r) => r.json().read_at)).size).toBe(1);
    expect(await unread()).toBe(8);
    const all = await Promise.all([
      call('POST', '/notifications/read-all', agent.token),
      call('POST', '/notifications/read-all', agent.token),
      ...ids.slice(1, 4).map((id) => call('POST', `/notifications/${id}/read`, agent.token)),
    ]);
    expect(all.every((r) => r.statusCode === 200)).toBe(true);
    expect(all.slice(0, 2).reduce((sum, r) => sum + (r.json().marked as number), 0)).toBeLessThanOrEqual(8);
    expect(await unread()).toBe(0);
    expect((await call('GET', '/notifications?unread=true', agent.token)).json().data).toEqual([]);
  });

  it('another employee’s or another entity’s notification is 404; their lists and counts are their own', async () => {
    const [mine] = (await call('GET', '/notifications?limit=1', agent.token)).json().data;
    expect((await call('POST', `/notifications/${mine.id}/read`, admin.token)).statusCode).toBe(404);
    expect((await call('POST', `/notifications/${mine.id}/read`, foreignToken)).statusCode).toBe(404);
    expect((await call('GET', '/notifications', foreignToken)).json().data).toEqual([]);
    expect(await unread(foreignToken)).toBe(0);
  });

  it('an employee who loses sight of the conversation keeps its notifications, unavailable and without content', async () => {
    await t.database.db.execute(
      sql`update conversation set assignment_status = 'assigned', assigned_employee_id = ${admin.member.employeeId} where id = ${conversationId}`,
    );
    const items = (await call('GET', '/notifications', agent.token)).json().data as { available: boolean; data: unknown; conversation_id: number }[];
    expect(items.length).toBe(9);
    for (const item of items) expect(item).toMatchObject({ available: false, data: null, conversation_id: conversationId, actor_employee_id: null });
  });
});
