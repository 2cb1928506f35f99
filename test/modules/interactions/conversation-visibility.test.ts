/**
 * Who sees what and who may answer (issue 30): every conversation route × four roles × five conversations
 * relative to the caller, with the expected status per cell; the same over sockets (which conversations each
 * socket hears, subscriptions refused, hearing stops once a conversation is lost); the claim race; another
 * entity's conversations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { assignLeadSeller, makeChannelAccount } from '../../helpers/conversation-factories.js';
import { connectSocket, listen, waitFor, type ReceivedEvent } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import { queryRows } from '../../../src/db/client.js';
import { rebuildLeadSellers } from '../../../src/modules/records/index.js';
import type { Socket } from 'socket.io-client';

const API_KEY = 'sim-key-0123456789';
const ROLES = ['view_all', 'reply_any', 'restricted', 'none'] as const;
type Role = (typeof ROLES)[number];
const CONVERSATIONS = ['mine', 'another', 'my_queue', 'elsewhere', 'my_lead'] as const;
type Kind = (typeof CONVERSATIONS)[number];
const CODES: Record<Role, { codes?: string[]; conversations: 'all' | 'restricted' }> = {
  view_all: { codes: ['conversations.view_all', 'cartera.seller_assignment', 'catalog.view'], conversations: 'restricted' },
  reply_any: { codes: ['conversations.reply_any', 'cartera.seller_assignment', 'catalog.view'], conversations: 'restricted' },
  restricted: { codes: ['cartera.seller_assignment', 'catalog.view'], conversations: 'restricted' },
  none: { conversations: 'restricted' },
};

/**
 * Expected status per route, role and conversation (columns: mine, another's, unassigned in my queue,
 * unassigned elsewhere, my lead's, which is assigned to someone else). Routes run in this order for each
 * cell, so a send that claims a conversation comes after the reads, and the assignment comes last.
 */
//                                 mine another my_queue elsewhere my_lead
const SEES = {
  view_all: [200, 200, 200, 200, 200],
  reply_any: [200, 404, 200, 404, 200],
  restricted: [200, 404, 200, 404, 200],
  none: [200, 404, 200, 404, 200],
};
const MATRIX: Record<string, Record<Role, number[]>> = {
  'GET detail': SEES,
  'GET history': SEES,
  'PATCH workspace-notes': SEES,
  'POST read': SEES,
  'POST follow-up': SEES,
  'GET media': SEES,
  'POST pending': SEES,
  'POST reopen': SEES,
  'GET catalog/context': { ...SEES, none: [403, 403, 403, 403, 403] },
  'POST messages/text': {
    view_all: [202, 409, 202, 202, 409],
    reply_any: [202, 404, 202, 404, 202],
    restricted: [202, 404, 202, 404, 409],
    none: [202, 404, 202, 404, 409],
  },
  'POST assign': { ...SEES, none: [403, 403, 403, 403, 403] },
};

let t: TestContext;
let sim: ProviderSimulator;
let baseUrl: string;
let entityId: number;
let otherEntityId: number;
let admin: Member;
let adminToken: string;
let other: Member;
const agents = {} as Record<Role, { member: Member; token: string; queueId: number }>;
/** Conversation ids by role and kind, and each one's inbound media id. */
const ids = {} as Record<Role, Record<Kind, number>>;
const mediaOf = new Map<number, string>();
let foreignId: number;
let phone = 50255570000;

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

async function openConversation(entity: number, account: string): Promise<number> {
  const from = String(phone++);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: account }, { from, type: 'image', text: 'hello' }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
  const [row] = await queryRows<{ id: number; media_id: string }>(
    t.database.db,
    sql`select c.id, m.media_id from conversation c join message m on m.conversation_id = c.id where c.entity_id = ${entity} and c.external_chat_id = ${from}`,
  );
  mediaOf.set(row!.id, row!.media_id);
  return row!.id;
}

/** Puts conversation `id` in a state: assigned to an employee, or waiting in a queue. */
async function place(id: number, to: { employeeId: number } | { queueId: number }) {
  if ('employeeId' in to)
    await t.database.db.execute(
      sql`update conversation set assignment_status = 'assigned', assigned_employee_id = ${to.employeeId}, queue_id = null where id = ${id}`,
    );
  else
    await t.database.db.execute(
      sql`update conversation set assignment_status = 'queued', assigned_employee_id = null, queue_id = ${to.queueId}, queued_at = now() where id = ${id}`,
    );
}

const leadOf = async (id: number) => (await queryRows<{ lead_id: number }>(t.database.db, sql`select lead_id from conversation where id = ${id}`))[0]!.lead_id;

async function call(route: string, id: number, token: string, me: number): Promise<number> {
  const c = `/api/interactions/conversations/${id}`;
  switch (route) {
    case 'GET detail':
      return (await api('GET', c, token)).statusCode;
    case 'GET history':
      return (await api('GET', `${c}/history`, token)).statusCode;
    case 'PATCH workspace-notes':
      return (await api('PATCH', `${c}/workspace-notes`, token, { workspace_notes: 'seen' })).statusCode;
    case 'POST read':
      return (await api('POST', `${c}/read`, token)).statusCode;
    case 'POST follow-up':
      return (await api('POST', `${c}/follow-up`, token, { follow_up: true })).statusCode;
    case 'GET media':
      return (await api('GET', `/api/interactions/media/${mediaOf.get(id)}`, token)).statusCode;
    case 'POST pending':
      return (await api('POST', `${c}/pending`, token)).statusCode;
    case 'POST reopen':
      return (await api('POST', `${c}/reopen`, token)).statusCode;
    case 'GET catalog/context':
      return (await api('GET', `${c}/catalog/context`, token)).statusCode;
    case 'POST messages/text':
      return (await api('POST', `${c}/messages/text`, token, { body: 'hi' })).statusCode;
    case 'POST assign':
      return (await api('POST', `${c}/assign`, token, { employee_id: me })).statusCode;
    default:
      throw new Error(route);
  }
}

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: API_KEY });
  t = await createTestApp({ env: { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY, COMMUNICATIONS_TIMEOUT_MS: '1500' } });
  baseUrl = await listen(t.app);
  t.app.ctx.realtime.configure({ authCheckIntervalMs: 100 });
  const db = t.database.db;
  entityId = (await makeEntity(db, 'Visible')).id;
  otherEntityId = (await makeEntity(db, 'Elsewhere')).id;
  await makeChannelAccount(db, { entityId, externalAccountId: 'PN-VIS' });
  await makeChannelAccount(db, { entityId: otherEntityId, externalAccountId: 'PN-VIS-2' });
  admin = await makeMember(db, { entityId, codes: ['entity_channel_accounts.edit', 'cartera.seller_assignment'] });
  adminToken = await tokenFor(t.app, admin);
  other = await makeMember(db, { entityId, name: 'Another agent' });
  const elsewhereQueue = (await api('POST', '/api/interactions/routing/queues', adminToken, { name: 'Elsewhere' })).json().id as number;
  for (const role of ROLES) {
    const member = await makeMember(db, { entityId, name: `Agent ${role}`, ...CODES[role] });
    const queue = await api('POST', '/api/interactions/routing/queues', adminToken, { name: `Queue of ${role}` });
    expect(queue.statusCode).toBe(201);
    const queueId = queue.json().id as number;
    expect((await api('POST', `/api/interactions/routing/queues/${queueId}/members`, adminToken, { employee_id: member.employeeId })).statusCode).toBe(201);
    agents[role] = { member, token: await tokenFor(t.app, member), queueId };
    const row = {} as Record<Kind, number>;
    for (const kind of CONVERSATIONS) row[kind] = await openConversation(entityId, 'PN-VIS');
    await place(row.mine, { employeeId: member.employeeId });
    await place(row.another, { employeeId: other.employeeId });
    await place(row.my_queue, { queueId });
    await place(row.elsewhere, { queueId: elsewhereQueue });
    await place(row.my_lead, { employeeId: other.employeeId });
    await assignLeadSeller(db, entityId, await leadOf(row.my_lead), member.employeeId);
    ids[role] = row;
  }
  await rebuildLeadSellers(db, entityId);
  foreignId = await openConversation(otherEntityId, 'PN-VIS-2');
}, 180_000);
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

describe('sockets hear exactly the conversations their member sees', () => {
  const sockets = {} as Record<Role, { socket: Socket; events: ReceivedEvent[] }>;
  beforeAll(async () => {
    for (const role of ROLES) sockets[role] = await connectSocket(baseUrl, { token: agents[role].token });
  });
  afterAll(() => {
    for (const role of ROLES) sockets[role]?.socket.disconnect();
  });
  const heard = (role: Role) =>
    new Set(sockets[role].events.filter((e) => e.name === 'interaction.conversation.updated').map((e) => e.payload.conversation.id as number));

  it('a change to each conversation reaches the sockets of the members who see it, and no other', async () => {
    const all = ROLES.flatMap((role) => CONVERSATIONS.map((kind) => ids[role][kind]));
    for (const id of [...all, foreignId]) {
      const token = id === foreignId ? await tokenFor(t.app, await makeMember(t.database.db, { entityId: otherEntityId })) : adminToken;
      expect((await api('POST', `/api/interactions/conversations/${id}/follow-up`, token, { follow_up: false })).statusCode).toBe(200);
    }
    const last = ids.none.my_lead;
    await waitFor(() => heard('none').has(last) && heard('view_all').has(last));
    await new Promise((r) => setTimeout(r, 200)); // anything wrongly addressed would have arrived by now
    for (const role of ROLES) {
      const expected = role === 'view_all' ? all : [ids[role].mine, ids[role].my_queue, ids[role].my_lead];
      expect([...heard(role)].sort(), role).toEqual([...expected].sort());
    }
  });

  it('refuses a restricted socket a subscription to a conversation or chat it cannot see', async () => {
    const { socket } = sockets.restricted;
    expect(await socket.emitWithAck('interaction.chat.subscribe', { conversation_id: ids.restricted.another })).toEqual({ ok: false, error: 'not_found' });
    expect(await socket.emitWithAck('interaction.chat.subscribe', { conversation_id: foreignId })).toEqual({ ok: false, error: 'not_found' });
    expect(await socket.emitWithAck('interaction.chat.subscribe', { conversation_id: ids.restricted.mine })).toMatchObject({ ok: true });
    expect(await sockets.view_all.socket.emitWithAck('interaction.chat.subscribe', { conversation_id: ids.restricted.another })).toMatchObject({ ok: true });
  });

  it('stops hearing a conversation within seconds of losing it: removed from the queue, permission revoked', async () => {
    const { member, queueId } = agents.restricted;
    const members = (await api('GET', `/api/interactions/routing/queues/${queueId}/members`, adminToken)).json();
    const memberId = ((members.data ?? members) as { id: number; employee_id: number }[]).find((m) => m.employee_id === member.employeeId)!.id;
    expect((await api('DELETE', `/api/interactions/routing/queues/${queueId}/members/${memberId}`, adminToken)).statusCode).toBe(204);
    await t.database.db.execute(
      sql`delete from role_permission where permission_code = 'conversations.view_all' and role_id = ${agents.view_all.member.roleId!}`,
    );
    try {
      await new Promise((r) => setTimeout(r, 1500)); // a few re-authorizations (every 100 ms here)
      for (const role of ROLES) sockets[role].events.length = 0;
      for (const id of [ids.restricted.my_queue, ids.reply_any.another, ids.restricted.mine])
        await api('POST', `/api/interactions/conversations/${id}/follow-up`, adminToken, { follow_up: true });
      await waitFor(() => heard('restricted').has(ids.restricted.mine));
      await new Promise((r) => setTimeout(r, 200));
      expect(heard('restricted').has(ids.restricted.my_queue)).toBe(false);
      expect(heard('view_all').has(ids.reply_any.another)).toBe(false);
    } finally {
      // Restore both for the HTTP matrix, whatever happened above.
      await api('POST', `/api/interactions/routing/queues/${queueId}/members`, adminToken, { employee_id: member.employeeId });
      await t.database.db.execute(
        sql`insert into role_permission (role_id, permission_code) values (${agents.view_all.member.roleId!}, 'conversations.view_all') on conflict do nothing`,
      );
    }
  });
});

describe('every conversation route × role × conversation', () => {
  for (const role of ROLES) {
    it(`answers the expected status for the ${role} role`, async () => {
      const { token, member } = agents[role];
      const got: Record<string, number[]> = {};
      const expected: Record<string, number[]> = {};
      for (const [k, kind] of CONVERSATIONS.entries()) {
        for (const route of Object.keys(MATRIX)) {
          (got[route] ??= []).push(await call(route, ids[role][kind], token, member.employeeId));
          (expected[route] ??= []).push(MATRIX[route]![role][k]!);
        }
      }
      expect(got).toEqual(expected);
    });
  }

  it('lists exactly the visible conversations', async () => {
    // Seen two ways: each agent also sells the leads of their own and of their queue's conversation; still
    // listed and counted once.
    for (const role of ROLES)
      for (const id of [ids[role].mine, ids[role].my_queue]) await assignLeadSeller(t.database.db, entityId, await leadOf(id), agents[role].member.employeeId);
    await rebuildLeadSellers(t.database.db, entityId);
    for (const role of ROLES) {
      const listed = (await api('GET', '/api/interactions/conversations?limit=100', agents[role].token)).json().data.map((c: { id: number }) => c.id);
      const all = ROLES.flatMap((r) => CONVERSATIONS.map((kind) => ids[r][kind]));
      const mine = [ids[role].mine, ids[role].my_queue, ids[role].my_lead, ...(role === 'view_all' ? [] : [])];
      // The matrix above made the sends' claims: visibility after it is still the same set for restricted roles.
      expect([...listed].sort(), role).toEqual(role === 'view_all' ? [...all].sort() : [...mine].sort());
      // Page by page (each of a restricted viewer's ways of seeing is read apart and merged): the same order.
      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: { id: number }[]; pagination: { next_cursor: string | null } } = (
          await api('GET', `/api/interactions/conversations?limit=1${cursor ? `&cursor=${cursor}` : ''}`, agents[role].token)
        ).json();
        paged.push(...page.data.map((c: { id: number }) => c.id));
        cursor = page.pagination.next_cursor;
      } while (cursor !== null);
      expect(paged, role).toEqual(listed);
      // The tab counts count what the list shows.
      const counts = (await api('GET', '/api/interactions/conversations/counts', agents[role].token)).json();
      const total = Object.values(counts.all as Record<string, number>).reduce((n, x) => n + x, 0);
      expect(total, role).toBe(listed.length);
    }
  });

  it("answers 404 for another entity's conversation on every route, whatever the role", async () => {
    for (const role of ROLES)
      for (const route of Object.keys(MATRIX)) {
        const status = await call(route, foreignId, agents[role].token, agents[role].member.employeeId);
        expect([404, 403], `${role} ${route}`).toContain(status);
        if (role !== 'none') expect(status, `${role} ${route}`).toBe(404);
      }
  });
});

describe('claiming an unassigned conversation', () => {
  it('lets exactly one of two racing agents answer, 100 times', async () => {
    const db = t.database.db;
    const a = await makeMember(db, { entityId, conversations: 'restricted', codes: [] });
    const b = await makeMember(db, { entityId, conversations: 'restricted', codes: [] });
    const queueId = (await api('POST', '/api/interactions/routing/queues', adminToken, { name: 'Race' })).json().id as number;
    for (const m of [a, b]) await api('POST', `/api/interactions/routing/queues/${queueId}/members`, adminToken, { employee_id: m.employeeId });
    const [ta, tb] = [await tokenFor(t.app, a), await tokenFor(t.app, b)];
    const id = await openConversation(entityId, 'PN-VIS');
    for (let round = 0; round < 100; round++) {
      await place(id, { queueId });
      const answers = await Promise.all(
        [ta, tb].map((token) => api('POST', `/api/interactions/conversations/${id}/messages/text`, token, { body: `round ${round}` })),
      );
      const statuses = answers.map((r) => r.statusCode).sort();
      expect(statuses, `round ${round}`).toEqual([202, 409]);
      const loser = answers.find((r) => r.statusCode === 409)!;
      expect(loser.json().code).toBe('conversation_taken');
      const winner = answers[0]!.statusCode === 202 ? a : b;
      const [row] = await queryRows<{ assigned_employee_id: number; n: number }>(
        db,
        sql`select c.assigned_employee_id, (select count(*)::int from message m where m.conversation_id = c.id and m.text = ${`round ${round}`}) as n from conversation c where c.id = ${id}`,
      );
      expect(row).toEqual({ assigned_employee_id: winner.employeeId, n: 1 });
    }
  }, 180_000);
});
