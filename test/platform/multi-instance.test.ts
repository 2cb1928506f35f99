/**
 * Two service processes on one PostgreSQL database and one Redis: a webhook posted to instance A reaches
 * a socket connected to instance B, in order; a socket of another entity on B hears nothing of it, even
 * subscribed to that chat's id; schedule ticks running on both instances start a due slot once; an instance
 * SIGKILLed in the middle of a burst of webhooks and sends loses and duplicates nothing (the clients fail
 * over to the other instance, as behind a load balancer); a client whose connection drops and which comes
 * back through the load balancer on the other instance receives what it missed, once. Runs only when
 * TEST_DATABASE_URL and REDIS_URL are set.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';
import { makeChannelAccount } from '../helpers/conversation-factories.js';
import { connectSocket, waitFor, type ReceivedEvent } from '../helpers/interactions.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { whatsAppMessage } from '../../sim/communications/payloads.js';
import { startProviderSimulator, type ProviderSimulator } from '../../sim/communications/provider.js';
import { queryRows } from '../../src/db/client.js';
import { io, type Socket } from 'socket.io-client';
import { startTcpBalancer } from '../helpers/tcp-balancer.js';

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('several instances on PostgreSQL and Redis', () => {
  let testDb: TestDatabase;
  let t: TestContext;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let token: string;
  let otherToken: string;
  let sim: ProviderSimulator;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    // An instance without workers, to set up and to enqueue; A and B are the real service.
    t = await createTestApp({ testDb, startQueue: false });
    const e1 = (await makeEntity(t.database.db, 'Multi')).id;
    const e2 = (await makeEntity(t.database.db, 'Otra')).id;
    await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-MULTI' });
    token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['workflows.manage'] }));
    otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2 }));
    sim = await startProviderSimulator({ apiKey: 'multi-communications-key' });
    const env = {
      REDIS_URL: process.env.REDIS_URL!,
      COMMUNICATIONS_BASE_URL: sim.url,
      COMMUNICATIONS_API_KEY: 'multi-communications-key',
      // A send lost with its process is taken over 10 s after it started; maintenance looks every second.
      COMMUNICATIONS_TIMEOUT_MS: '3000',
      QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1',
    };
    [a, b] = await Promise.all([startService(testDb.url!, 'multi-a', env), startService(testDb.url!, 'multi-b', env)]);
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await a?.dispose();
    await b?.dispose();
    await t?.close();
    await sim?.close();
    await testDb?.close();
  });

  it('delivers webhooks posted to A to a socket on B, in order, to a chat subscription on B that chat only, and to no other entity', async () => {
    const mine = await connectSocket(b.baseUrl, { token });
    const chatWindow = await connectSocket(b.baseUrl, { token, scope: 'subscriptions' });
    const theirs = await connectSocket(b.baseUrl, { token: otherToken });
    sockets.push(mine.socket, chatWindow.socket, theirs.socket);
    expect(await chatWindow.socket.emitWithAck('interaction.chat.subscribe', { external_chat_id: '50255501111' })).toMatchObject({ ok: true });
    await new Promise((resolve) => theirs.socket.emit('interaction.chat.subscribe', { external_chat_id: '50255501111' }, resolve));
    // Two chats interleaved: the chat window subscribed to the first one only.
    const texts = Array.from({ length: 10 }, (_, i) => `mensaje ${i}`);
    const chatOf = (i: number) => (i % 2 === 0 ? '50255501111' : '50255502222');
    for (const [i, text] of texts.entries()) {
      const res = await fetch(`${a.baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'PN-MULTI' }, { from: chatOf(i), text, timestamp: 1_760_000_000 + i })),
      });
      expect(res.status).toBe(200);
    }
    const created = (events: ReceivedEvent[]) => events.filter((e) => e.name === 'interaction.message.created').map((e) => e.payload.message.text as string);
    const firstChat = texts.filter((_, i) => chatOf(i) === '50255501111');
    await waitFor(() => created(mine.events).length >= texts.length || undefined, 20_000);
    await waitFor(() => created(chatWindow.events).length >= firstChat.length || undefined, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    // Each chat's messages in order on the entity socket (projection may interleave two chats differently).
    for (const chat of ['50255501111', '50255502222'])
      expect(created(mine.events).filter((text) => chatOf(texts.indexOf(text)) === chat)).toEqual(texts.filter((_, i) => chatOf(i) === chat));
    expect(created(mine.events).sort()).toEqual([...texts].sort());
    expect(created(chatWindow.events)).toEqual(firstChat);
    expect(chatWindow.events.filter((e) => e.name !== 'interaction.ready' && !JSON.stringify(e.payload).includes('50255501111'))).toEqual([]);
    expect(theirs.events.filter((e) => e.name !== 'interaction.ready')).toEqual([]);
  }, 60_000);

  it('starts a due scheduled slot once although both instances tick', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/workflows',
      headers: bearer(token),
      payload: { name: 'Cada día', preset_code: 'sched_daily', preset_values: { run_at_time: '08:00' }, steps: [{ key: 'pause', action: 'wait', seconds: 1 }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: number }>().id;
    // The slot is due now; ticks are enqueued on both instances at once (as every instance's cron may).
    await t.database.db.execute(sql`update workflow_step_triggers set next_run_at = now() - interval '5 seconds' where workflow_id = ${id}`);
    await Promise.all(Array.from({ length: 6 }, () => t.app.ctx.queue.enqueue(t.app.ctx.db, 'workflows.schedule-tick', {})));
    const executions = async () =>
      (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from workflow_execution where workflow_id = ${id}`))[0]!.n;
    const stillDue = async () =>
      (await queryRows<{ due: boolean }>(t.database.db, sql`select next_run_at <= now() as due from workflow_step_triggers where workflow_id = ${id}`))[0]!.due;
    const runs = await waitFor(async () => ((await executions()) >= 1 && !(await stillDue()) ? executions() : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 2000)); // the other ticks have run by now
    expect(runs).toBe(1);
    expect(await executions()).toBe(1);
  }, 60_000);

  it('loses and duplicates nothing when an instance is killed in the middle of a burst of webhooks and sends', async () => {
    const chats = Array.from({ length: 8 }, (_, i) => `5025560${String(i).padStart(4, '0')}`);
    // The customers write first, so that the service window is open for the agents' answers.
    for (const from of chats) {
      const res = await fetch(`${b.baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'PN-MULTI' }, { from, text: 'hola', id: `wamid.OPEN-${from}` })),
      });
      expect(res.status).toBe(200);
    }
    const conversationIds = await waitFor(async () => {
      const rows = await queryRows<{ id: number }>(t.database.db, sql`select id from conversation where external_chat_id in ${chats}`);
      return rows.length === chats.length ? rows.map((r) => r.id) : undefined;
    }, 20_000);

    const victim = await startService(testDb.url!, 'multi-victim', {
      REDIS_URL: process.env.REDIS_URL!,
      COMMUNICATIONS_BASE_URL: sim.url,
      COMMUNICATIONS_API_KEY: 'multi-communications-key',
      COMMUNICATIONS_TIMEOUT_MS: '3000',
      QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1',
    });
    let killed = false;
    const answeredBy = { victim: 0, b: 0 };
    /** An answer, and which instance gave it: what a failed expectation shows. */
    type Answer = { status: number; by: 'victim' | 'b'; path: string; body: string };
    /** Posts to the victim until it is killed, then to B (a load balancer's failover); the answer. */
    const post = async (path: string, body: object, headers: Record<string, string> = {}): Promise<Answer> => {
      const init = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
      if (!killed) {
        const res = await fetch(`${victim.baseUrl}${path}`, init).catch(() => undefined);
        const text = await res?.text().catch(() => undefined);
        if (res && text !== undefined) {
          answeredBy.victim++;
          return { status: res.status, by: 'victim', path, body: text };
        }
      }
      answeredBy.b++;
      const res = await fetch(`${b.baseUrl}${path}`, init);
      return { status: res.status, by: 'b', path, body: await res.text() };
    };
    const inbound = Array.from({ length: 120 }, (_, i) => ({ id: `wamid.BURST-${i}`, from: chats[i % chats.length]!, text: `cliente ${i}` }));
    const outbound = Array.from({ length: 48 }, (_, i) => ({
      key: `burst-${i}`,
      conversationId: conversationIds[i % conversationIds.length]!,
      text: `agente ${i}`,
    }));
    // Webhooks and sends interleaved evenly through the burst.
    const work = [
      ...inbound.map((m, i) => ({
        at: i / inbound.length,
        run: () => post('/api/interactions/webhooks/communications', whatsAppMessage({ phoneNumberId: 'PN-MULTI' }, { from: m.from, text: m.text, id: m.id })),
      })),
      ...outbound.map((m, i) => ({
        at: i / outbound.length,
        run: () => post(`/api/interactions/conversations/${m.conversationId}/messages/text`, { body: m.text }, { ...bearer(token), 'idempotency-key': m.key }),
      })),
    ]
      .sort((x, y) => x.at - y.at)
      .map((w) => w.run);
    const answers: Answer[] = [];
    let next = 0;
    let done = 0;
    const runner = async () => {
      while (next < work.length) {
        const i = next++;
        answers[i] = await work[i]!();
        if (++done === Math.floor(work.length / 2)) {
          victim.child.kill('SIGKILL');
          killed = true;
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, runner));
    expect(await victim.exited).toBe('SIGKILL');
    // Every request was answered (by the victim before it died, or by B): nothing is left unaccepted.
    const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 202);
    expect(unexpected, unexpected.length > 0 ? `victim:\n${victim.output()}\nB:\n${b.output()}` : undefined).toEqual([]);
    expect(answeredBy.victim).toBeGreaterThanOrEqual(work.length / 2);
    expect(answeredBy.b).toBeGreaterThan(0);

    const inboundIds = inbound.map((m) => m.id);
    const projected = async () =>
      queryRows<{ external_message_id: string }>(t.database.db, sql`select external_message_id from message where external_message_id like 'wamid.BURST-%'`);
    await waitFor(async () => ((await projected()).length >= inboundIds.length ? true : undefined), 60_000);
    const sentTexts = outbound.map((m) => m.text);
    const delivered = () => sim.deliveries.map((d) => (d.body.text as { body: string }).body).filter((text) => text.startsWith('agente '));
    await waitFor(() => (new Set(delivered()).size >= sentTexts.length ? true : undefined), 60_000);
    // A send the victim handed to the platform but did not record is taken over once its attempt expires
    // (three client timeouts) and sent again with the same idempotency key: wait until every one is settled.
    const unsettled = async () =>
      (
        await queryRows<{ n: number }>(
          t.database.db,
          sql`select count(*)::int as n from message where direction = 'outbound' and text like 'agente %' and status = 'pending'`,
        )
      )[0]!.n;
    await waitFor(async () => ((await unsettled()) === 0 ? true : undefined), 60_000);
    await new Promise((r) => setTimeout(r, 1500)); // any duplicate would have arrived by now

    expect((await projected()).map((r) => r.external_message_id).sort()).toEqual([...inboundIds].sort());
    expect(delivered().sort()).toEqual([...sentTexts].sort());
    const stored = await queryRows<{ text: string; status: string }>(
      t.database.db,
      sql`select text, status from message where direction = 'outbound' and text like 'agente %'`,
    );
    expect(stored.map((r) => r.text).sort()).toEqual([...sentTexts].sort());
    expect(stored.filter((r) => r.status === 'pending' || r.status === 'failed')).toEqual([]);
  }, 150_000);

  it('replays to a client that reconnects on the other instance the events it missed, each once, in order', async () => {
    const balancer = await startBalancer(new URL(a.baseUrl).port);
    try {
      const texts: string[] = [];
      const readies: unknown[] = [];
      const socket = io(`${balancer.url}/interactions`, {
        transports: ['websocket'],
        forceNew: true,
        auth: { token },
        reconnectionDelay: 500,
        reconnectionDelayMax: 500,
        randomizationFactor: 0,
      });
      sockets.push(socket);
      socket.on('interaction.message.created', (p: { message: { text: string } }) => void texts.push(p.message.text));
      socket.on('interaction.ready', (r: unknown) => void readies.push(r));
      await waitFor(() => readies.length === 1 || undefined, 10_000);
      const customer = async (text: string) => {
        const res = await fetch(`${a.baseUrl}/api/interactions/webhooks/communications`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'PN-MULTI' }, { from: '50255502222', text })),
        });
        expect(res.status).toBe(200);
      };
      await customer('en A');
      await waitFor(() => texts.length === 1 || undefined, 10_000);

      // A's connections drop; from now on the balancer sends clients to B.
      balancer.switchTo(new URL(b.baseUrl).port);
      await waitFor(() => socket.disconnected || undefined, 5000);
      await customer('perdido 1');
      await customer('perdido 2');
      await waitFor(() => readies.length === 2 || undefined, 10_000);
      expect(socket.recovered).toBe(true);
      await customer('de nuevo');
      await waitFor(() => texts.length >= 4 || undefined, 10_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(texts).toEqual(['en A', 'perdido 1', 'perdido 2', 'de nuevo']);
    } finally {
      await balancer.close();
    }
  }, 60_000);
});

/** A TCP load balancer with one upstream port at a time; `switchTo` cuts every open connection and sends new ones to `port`. */
async function startBalancer(port: string): Promise<{ url: string; switchTo(port: string): void; close(): Promise<void> }> {
  let upstream = port;
  const balancer = await startTcpBalancer(() => Number(upstream));
  return {
    url: balancer.url,
    switchTo(next) {
      upstream = next;
      balancer.cutAll();
    },
    close: () => balancer.close(),
  };
}
