/**
 * Two service processes on one PostgreSQL database and one Redis: a webhook posted to instance A reaches
 * a socket connected to instance B, in order; a socket of another entity on B hears nothing of it, even
 * subscribed to that chat's id; schedule ticks running on both instances start a due slot once. Runs only
 * when TEST_DATABASE_URL and REDIS_URL are set.
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
import { queryRows } from '../../src/db/client.js';
import type { Socket } from 'socket.io-client';

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('several instances on PostgreSQL and Redis', () => {
  let testDb: TestDatabase;
  let t: TestContext;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let token: string;
  let otherToken: string;
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
    const env = { REDIS_URL: process.env.REDIS_URL! };
    [a, b] = await Promise.all([startService(testDb.url!, 'multi-a', env), startService(testDb.url!, 'multi-b', env)]);
  });
  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await a?.dispose();
    await b?.dispose();
    await t?.close();
    await testDb?.close();
  });

  it('delivers webhooks posted to A to a socket on B, in order, and to no other entity', async () => {
    const mine = await connectSocket(b.baseUrl, { token });
    const theirs = await connectSocket(b.baseUrl, { token: otherToken });
    sockets.push(mine.socket, theirs.socket);
    await new Promise((resolve) => theirs.socket.emit('interaction.chat.subscribe', { external_chat_id: '50255501111' }, resolve));
    const texts = Array.from({ length: 10 }, (_, i) => `mensaje ${i}`);
    for (const [i, text] of texts.entries()) {
      const res = await fetch(`${a.baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(whatsAppMessage({ phoneNumberId: 'PN-MULTI' }, { from: '50255501111', text, timestamp: 1_760_000_000 + i })),
      });
      expect(res.status).toBe(200);
    }
    const created = (events: ReceivedEvent[]) => events.filter((e) => e.name === 'interaction.message.created').map((e) => e.payload.message.text as string);
    await waitFor(() => created(mine.events).length >= texts.length || undefined, 20_000);
    expect(created(mine.events)).toEqual(texts);
    await new Promise((r) => setTimeout(r, 300));
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
    const executions = async () => (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from workflow_execution where workflow_id = ${id}`))[0]!.n;
    const stillDue = async () => (await queryRows<{ due: boolean }>(t.database.db, sql`select next_run_at <= now() as due from workflow_step_triggers where workflow_id = ${id}`))[0]!.due;
    const runs = await waitFor(async () => ((await executions()) >= 1 && !(await stillDue()) ? executions() : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 2000)); // the other ticks have run by now
    expect(runs).toBe(1);
    expect(await executions()).toBe(1);
  }, 60_000);
});
