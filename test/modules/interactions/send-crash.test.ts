/**
 * A service process SIGKILLed after the platform accepted a message but before the service recorded it:
 * a second process on the same PostgreSQL database takes the lost attempt over once it expires and sends
 * again with the same idempotency key, so the customer receives the message once and the message ends
 * `sent` with the platform's id. Needs several processes on one database, so it runs only when
 * TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { waitFor, waitForConversation } from '../../helpers/interactions.js';
import { startService, type ServiceProcess } from '../../helpers/service-process.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import { whatsAppMessage } from '../../../sim/communications/payloads.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;

const API_KEY = 'crash-communications-key';
const CUSTOMER = '50255512345';

describe.runIf(process.env.TEST_DATABASE_URL)("sending after a crash (SIGKILL) between the platform's acceptance and our record", () => {
  let testDb: TestDatabase;
  let sim: ProviderSimulator;
  let t: TestContext;
  let token: string;
  let env: Record<string, string>;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    sim = await startProviderSimulator({ apiKey: API_KEY });
    // The client waits 3 s for an answer (time to kill the process first); an attempt unfinished after
    // 10 s counts as lost, and the queue's maintenance looks for lost attempts every second.
    env = { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY, COMMUNICATIONS_TIMEOUT_MS: '3000', QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1' };
    // An API-only instance (no workers) to set up and read; the service processes send.
    t = await createTestApp({ testDb, env, startQueue: false });
    const entityId = (await makeEntity(t.database.db, 'Crash sends')).id;
    await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-CRASH' });
    token = await tokenFor(t.app, await makeMember(t.database.db, { entityId }));
  });
  afterAll(async () => {
    for (const s of services) await s.dispose();
    await t?.close();
    await sim?.close();
    await testDb?.close();
  });

  const start = async (name: string) => {
    const s = await startService(testDb.url!, name, env);
    services.push(s);
    return s;
  };

  it('delivers the message once and records it sent, from the process that took the attempt over', async () => {
    const first = await start('send-crash-1');
    const webhook = await fetch(`${first.baseUrl}/api/interactions/webhooks/communications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'PN-CRASH' }, { from: CUSTOMER, text: '¿Tienen envío?' })),
    });
    expect(webhook.status).toBe(200);
    const conversation = await waitForConversation(t.app, token, CUSTOMER, 10_000);

    sim.failNext('accept_and_hang', 1);
    const sent = await fetch(`${first.baseUrl}/api/interactions/conversations/${conversation.id}/messages/text`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Sí, a todo el país' }),
    });
    expect(sent.status).toBe(202);
    const messageId = ((await sent.json()) as Row).id as number;

    // The platform has the message; the process waits for an answer that never comes, and dies.
    await sim.waitForDeliveries(1, 10_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const messageOf = async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/interactions/conversations/${conversation.id}/history?limit=50`, headers: bearer(token) });
      return (res.json().data as Row[]).find((m) => m.id === messageId)!;
    };
    expect((await messageOf()).status).toBe('pending');

    await start('send-crash-2');
    const settled = await waitFor(async () => {
      const m = await messageOf();
      return m.status !== 'pending' ? m : undefined;
    }, 40_000);

    expect(settled.status).toBe('sent');
    expect(sim.deliveries).toHaveLength(1);
    expect(settled.external_message_id).toBe(sim.deliveries[0]!.outcome.split(' ')[0]);
    const attempts = sim.calls.filter((c) => c.body.type === 'text');
    expect(attempts.map((c) => (c.outcome.startsWith('wamid.') ? 'accepted' : c.outcome))).toEqual(['accepted', 'replay']);
    expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
  }, 90_000);
});
