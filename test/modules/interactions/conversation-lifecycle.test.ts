import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { captureEvents, connectSocket, listen, waitFor, waitForConversation, type ReceivedEvent } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';
import { ACTION_TARGET, ALLOWED_FROM, LIFECYCLE_ACTIONS, REOPENED_BY_INBOUND } from '../../../src/modules/interactions/lifecycle/conversation-lifecycle.js';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../../../src/modules/interactions/model/index.js';

let t: TestContext;
let baseUrl: string;
let e1: number;
let member: Member;
let token: string;
let otherToken: string;
let events: ReturnType<typeof captureEvents<'conversation.resolved' | 'conversation.reopened'>>;
let sockets: { events: ReceivedEvent[]; socket: { disconnect(): void } };

const phone = () => `5025${randomBytes(4).readUInt32BE(0) % 10_000_000}`.padEnd(11, '0');
const inbound = async (from: string, text = 'hola') => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: 'PN-L1' }, { from, text }),
  });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const post = (url: string, payload?: object, tk = token) =>
  t.app.inject({ method: 'POST', url, headers: bearer(tk), ...(payload !== undefined ? { payload } : {}) });
const act = (id: number, action: string, tk = token) =>
  action === 'snooze'
    ? post(`/interactions/conversations/${id}/snooze`, { until: new Date(Date.now() + 3_600_000).toISOString() }, tk)
    : post(`/interactions/conversations/${id}/${action}`, undefined, tk);
const detail = async (id: number) => (await t.app.inject({ method: 'GET', url: `/interactions/conversations/${id}`, headers: bearer(token) })).json();

/** A new conversation of the entity brought to `status` through the API. */
async function conversationIn(status: ConversationStatus): Promise<{ id: number; chat: string }> {
  const chat = phone();
  await inbound(chat);
  const { id } = await waitForConversation(t.app, token, chat);
  const via: Record<ConversationStatus, string | null> = { open: null, pending: 'pending', snoozed: 'snooze', resolved: 'resolve' };
  if (via[status] !== null) expect((await act(id, via[status])).statusCode).toBe(200);
  expect((await detail(id)).status).toBe(status);
  return { id, chat };
}

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t.app);
  e1 = (await makeEntity(t.database.db, 'Lifecycle')).id;
  const e2 = (await makeEntity(t.database.db, 'Elsewhere')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-L1' });
  member = await makeMember(t.database.db, { entityId: e1 });
  token = await tokenFor(t.app, member);
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2 }));
  events = captureEvents(t.app, ['conversation.resolved', 'conversation.reopened']);
  sockets = await connectSocket(baseUrl, { token });
});
afterAll(async () => {
  sockets.socket.disconnect();
  await t.close();
});

describe('conversation lifecycle transitions', () => {
  it('starts open, and every status × action follows the transition table', async () => {
    const first = await conversationIn('open');
    expect(await detail(first.id)).toMatchObject({ status: 'open', status_changed_at: null, status_changed_by: null, snoozed_until: null });
    for (const from of CONVERSATION_STATUSES) {
      for (const action of LIFECYCLE_ACTIONS) {
        const { id } = await conversationIn(from);
        const res = await act(id, action);
        const label = `${from} × ${action}`;
        if (ALLOWED_FROM[action].includes(from)) {
          expect(res.statusCode, label).toBe(200);
          const body = res.json();
          expect(body.status, label).toBe(ACTION_TARGET[action]);
          expect(body.status_changed_by, label).toBe(member.employeeId);
          expect(Date.parse(body.status_changed_at), label).toBeGreaterThan(Date.now() - 60_000);
          expect(body.snoozed_until === null, label).toBe(action !== 'snooze');
        } else {
          expect(res.statusCode, label).toBe(409);
          expect(res.json(), label).toMatchObject({ code: 'status_transition_not_allowed', conversation_status: from, action });
          expect((await detail(id)).status, label).toBe(from);
        }
      }
    }
  });

  it('an inbound message opens a pending, snoozed or resolved conversation, as the system', async () => {
    for (const from of CONVERSATION_STATUSES) {
      const { id, chat } = await conversationIn(from);
      await inbound(chat, 'sigo aquí');
      const after = await detail(id);
      expect(after.status, from).toBe('open');
      if (REOPENED_BY_INBOUND.includes(from)) expect(after, from).toMatchObject({ status_changed_by: null, snoozed_until: null });
      else expect(after.status_changed_at, from).toBeNull();
    }
  });

  it('moving a snooze keeps one until; a snooze must lie ahead', async () => {
    const { id } = await conversationIn('snoozed');
    const until = new Date(Date.now() + 7_200_000).toISOString();
    expect((await post(`/interactions/conversations/${id}/snooze`, { until })).json().snoozed_until).toBe(until);
    const past = await post(`/interactions/conversations/${id}/snooze`, { until: new Date(Date.now() - 1000).toISOString() });
    expect(past.statusCode).toBe(422);
    expect(past.json().code).toBe('snooze_until_invalid');
    const far = await post(`/interactions/conversations/${id}/snooze`, { until: new Date(Date.now() + 400 * 86_400_000).toISOString() });
    expect(far.json().code).toBe('snooze_until_invalid');
    const bad = await post(`/interactions/conversations/${id}/snooze`, { until: 'tomorrow' });
    expect(bad.statusCode).toBe(400);
    expect((await post(`/interactions/conversations/${id}/snooze`, {})).statusCode).toBe(400);
  });

  it('publishes status_changed to the sockets and conversation.resolved / conversation.reopened on the bus', async () => {
    const { id, chat } = await conversationIn('open');
    const before = events.length;
    await act(id, 'resolve');
    await act(id, 'reopen');
    await act(id, 'pending');
    await act(id, 'reopen'); // pending → open: not a reopening of a resolved conversation
    await act(id, 'resolve');
    await inbound(chat, 'otra pregunta');
    const mine = events.slice(before).filter((e) => e.payload.conversation_id === id);
    expect(mine.map((e) => [e.name, e.payload.from_status, e.payload.via, e.payload.changed_by_employee_id])).toEqual([
      ['conversation.resolved', 'open', 'manual', member.employeeId],
      ['conversation.reopened', 'resolved', 'manual', member.employeeId],
      ['conversation.resolved', 'open', 'manual', member.employeeId],
      ['conversation.reopened', 'resolved', 'inbound_message', null],
    ]);
    expect(mine[0]!.payload).toMatchObject({ type: 'conversation.resolved', entity_id: e1, channel_type_code: 'chatapp_api', external_chat_id: chat });
    const changes = await waitFor(() => {
      const seen = sockets.events.filter((e) => e.name === 'interaction.conversation.status_changed' && e.payload.conversation.id === id);
      return seen.length === 6 && seen;
    });
    expect(changes.map((e) => `${e.payload.previous_status}→${e.payload.status}`)).toEqual([
      'open→resolved',
      'resolved→open',
      'open→pending',
      'pending→open',
      'open→resolved',
      'resolved→open',
    ]);
    expect(changes.at(-1)!.payload.changed_by_employee_id).toBeNull();
  });

  it("answers 404 for another entity's conversation on every lifecycle route", async () => {
    const { id } = await conversationIn('open');
    for (const action of LIFECYCLE_ACTIONS) {
      const res = await act(id, action, otherToken);
      expect(res.statusCode, action).toBe(404);
    }
    expect((await post('/interactions/conversations/999999/resolve')).statusCode).toBe(404);
    expect((await detail(id)).status).toBe('open');
  });
});
