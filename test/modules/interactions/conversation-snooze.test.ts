/**
 * Snooze wake-ups and the lifecycle's workflow triggers, through the durable queue: two app instances share
 * one database and both run workers, so a wake-up may run on either; each socket hears only its own
 * instance (no Redis here), so the events counted over both sockets are the wake-ups that happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { connectSocket, listen, queuedJobStates, waitFor, waitForConversation, type ReceivedEvent } from '../../helpers/interactions.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;
let testDb: TestDatabase;
let a: TestContext;
let b: TestContext;
let token: string;
const sockets: { events: ReceivedEvent[]; socket: { disconnect(): void } }[] = [];
let chatNo = 0;

const post = (url: string, payload?: object) => a.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
const get = async (url: string) => (await b.app.inject({ method: 'GET', url, headers: bearer(token) })).json();
const inbound = async (from: string, text: string) => {
  const res = await a.app.inject({
    method: 'POST',
    url: '/api/interactions/webhooks/communications',
    payload: whatsAppMessage({ phoneNumberId: 'PN-SZ' }, { from, text }),
  });
  expect(res.statusCode).toBe(200);
  await a.app.interactionsWorker.idle();
};
const newConversation = async () => {
  const chat = `5025570${String(++chatNo).padStart(4, '0')}`;
  await inbound(chat, 'hola');
  return { chat, id: (await waitForConversation(a.app, token, chat)).id };
};
const wakeUps = (id: number) =>
  sockets
    .flatMap((s) => s.events)
    .filter(
      (e) =>
        e.name === 'interaction.conversation.status_changed' &&
        e.payload.conversation.id === id &&
        e.payload.previous_status === 'snoozed' &&
        e.payload.changed_by_employee_id === null,
    );
/** The states of a conversation's wake-up jobs in the durable queue, in the order they are due. */
const wakeJobs = (id: number) => queuedJobStates(a.database.db, 'interactions.conversation.wake', `wake:${id}:`);
/** Waits until the first `count` wake-up jobs of the conversation have run to their end. */
const wakeJobsDone = (id: number, count: number) =>
  waitFor(async () => {
    const states = await wakeJobs(id);
    return states.length >= count && states.slice(0, count).every((s) => s === 'completed') ? states : undefined;
  }, 15_000);
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

beforeAll(async () => {
  testDb = await createTestDatabase();
  a = await createTestApp({ testDb, startQueue: true });
  b = await createTestApp({ testDb, startQueue: true });
  const entityId = (await makeEntity(a.database.db, 'Snoozes')).id;
  await makeChannelAccount(a.database.db, { entityId, externalAccountId: 'PN-SZ' });
  const member = await makeMember(a.database.db, { entityId, codes: ['workflows.manage'] });
  token = await tokenFor(a.app, member);
  for (const t of [a, b]) sockets.push(await connectSocket(await listen(t.app), { token }));
});
afterAll(async () => {
  for (const s of sockets) s.socket.disconnect();
  await b?.close();
  await a?.close();
  await testDb?.close();
});

describe('snooze wake-up', () => {
  it('opens a snoozed conversation at its instant exactly once across two instances', async () => {
    const { id } = await newConversation();
    const until = inSeconds(1.5);
    expect((await post(`/interactions/conversations/${id}/snooze`, { until })).json()).toMatchObject({ status: 'snoozed', snoozed_until: until });
    // Snoozing again until the same instant adds no second job.
    expect((await post(`/interactions/conversations/${id}/snooze`, { until })).statusCode).toBe(200);
    expect((await get(`/interactions/conversations/${id}`)).status).toBe('snoozed');
    const opened = await waitFor(async () => {
      const c = await get(`/interactions/conversations/${id}`);
      return c.status === 'open' && c;
    }, 15_000);
    expect(Date.parse(opened.status_changed_at)).toBeGreaterThanOrEqual(Date.parse(until));
    expect(opened).toMatchObject({ status_changed_by: null, snoozed_until: null });
    await waitFor(() => wakeUps(id).length > 0, 10_000);
    // One job, run to its end: nothing else can wake it.
    expect(await wakeJobsDone(id, 1)).toEqual(['completed']);
    expect(wakeUps(id)).toHaveLength(1);
  });

  it('a moved snooze wakes at the new instant only; an ended snooze leaves its job nothing to do', async () => {
    const moved = await newConversation();
    const ended = await newConversation();
    await post(`/interactions/conversations/${moved.id}/snooze`, { until: inSeconds(1) });
    const later = inSeconds(4);
    await post(`/interactions/conversations/${moved.id}/snooze`, { until: later });
    await post(`/interactions/conversations/${ended.id}/snooze`, { until: inSeconds(1) });
    await post(`/interactions/conversations/${ended.id}/resolve`);
    // The jobs of the first instants have run, and found nothing to do.
    await wakeJobsDone(moved.id, 1);
    expect(await wakeJobsDone(ended.id, 1)).toEqual(['completed']);
    expect((await get(`/interactions/conversations/${moved.id}`)).status).toBe('snoozed');
    expect((await get(`/interactions/conversations/${ended.id}`)).status).toBe('resolved');
    await waitFor(async () => (await get(`/interactions/conversations/${moved.id}`)).status === 'open', 15_000);
    await waitFor(() => wakeUps(moved.id).length > 0, 10_000);
    expect(await wakeJobsDone(moved.id, 2)).toEqual(['completed', 'completed']);
    expect(wakeUps(moved.id)).toHaveLength(1);
    expect(wakeUps(ended.id)).toHaveLength(0);
    expect((await get(`/interactions/conversations/${ended.id}`)).status).toBe('resolved');
  });
});

describe('workflow triggers', () => {
  it('conversation.resolved and conversation.reopened start the workflows of their presets', async () => {
    const create = async (preset: string, step: object) => {
      const res = await post('/api/workflows', { name: preset, preset_code: preset, steps: [step] });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as number;
    };
    const resolved = await create('conv_resolved', { key: 'note', action: 'add_note', text: 'Resuelta' });
    const reopened = await create('conv_reopened', { key: 'follow', action: 'set_follow_up', follow_up: true });
    const { id, chat } = await newConversation();
    await post(`/interactions/conversations/${id}/resolve`);
    await inbound(chat, 'una cosa más');
    const finished = (wf: number) =>
      waitFor(async () => {
        const rows = (await get(`/api/workflows/${wf}/executions`)).data as Row[];
        return rows.length === 1 && rows[0]!.status !== 'running' && rows;
      }, 15_000);
    const [r1] = await finished(resolved);
    expect(r1).toMatchObject({
      status: 'succeeded',
      context_json: { trigger: { type: 'conversation.resolved', conversation_id: id, from_status: 'open', via: 'manual' } },
    });
    const [r2] = await finished(reopened);
    expect(r2).toMatchObject({
      status: 'succeeded',
      context_json: {
        trigger: { type: 'conversation.reopened', conversation_id: id, from_status: 'resolved', via: 'inbound_message', changed_by_employee_id: null },
      },
    });
    const c = await get(`/interactions/conversations/${id}`);
    expect(c).toMatchObject({ status: 'open', follow_up: true });
    expect((await get(`/interactions/conversations/${id}/notes`)).data.map((n: { body: string }) => n.body)).toContain('Resuelta');
  });
});
