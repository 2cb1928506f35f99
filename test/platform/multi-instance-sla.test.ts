/**
 * SLA timers across two service processes on one PostgreSQL database (issue 31): conversations whose first
 * response falls due within seconds, instance A SIGKILLed while their timers are pending, and every breach
 * still recorded exactly once (one `conversation_sla_breach` row and one `conversation.sla_breached` workflow
 * execution per conversation); those due after the kill are recorded by B within 2 s of their due instant.
 * Runs only when TEST_DATABASE_URL and REDIS_URL are set.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../helpers/factories.js';
import { makeChannelAccount } from '../helpers/conversation-factories.js';
import { waitFor } from '../helpers/interactions.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { whatsAppMessage } from '../../sim/communications/payloads.js';
import { queryRows } from '../../src/db/client.js';

const CONVERSATIONS = 24;

describe.runIf(process.env.TEST_DATABASE_URL && process.env.REDIS_URL)('SLA timers across two instances', () => {
  let testDb: TestDatabase;
  let t: TestContext;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let entityId: number;
  let workflowId: number;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    // An instance without workers, to set up; A and B are the real service.
    t = await createTestApp({ testDb, startQueue: false });
    entityId = (await makeEntity(t.database.db, 'SLA multi')).id;
    await makeChannelAccount(t.database.db, { entityId, externalAccountId: 'PN-SLA-MULTI' });
    const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId, codes: ['sla_policies.edit', 'workflows.manage'] }));
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
    expect((await post('/interactions/sla-policies', { name: 'One minute', first_response_minutes: 1, time_basis: 'calendar' })).statusCode).toBe(201);
    const wf = await post('/api/workflows', { name: 'Breach note', preset_code: 'sla_breached', steps: [{ key: 'note', action: 'add_note', text: 'SLA' }] });
    expect(wf.statusCode, wf.body).toBe(201);
    workflowId = wf.json<{ id: number }>().id;
    // Maintenance every second: a job the killed instance held is taken over once its attempt expires.
    const env = { REDIS_URL: process.env.REDIS_URL!, QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1' };
    [a, b] = await Promise.all([startService(testDb.url!, 'sla-a', env), startService(testDb.url!, 'sla-b', env)]);
  });
  afterAll(async () => {
    await a?.dispose();
    await b?.dispose();
    await t?.close();
    await testDb?.close();
  });

  it('records each breach once although an instance is SIGKILLed while the timers are pending', async () => {
    // Customers who wrote 50 to 57 s ago (late deliveries): first responses fall due 3 to 10 s from now.
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < CONVERSATIONS; i++) {
      const res = await fetch(`${a.baseUrl}/api/interactions/webhooks/communications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          whatsAppMessage({ phoneNumberId: 'PN-SLA-MULTI' }, { from: `50255590${String(i).padStart(3, '0')}`, timestamp: now - 57 + (i % 8) }),
        ),
      });
      expect(res.status).toBe(200);
    }
    const dues = await waitFor(async () => {
      const rows = await queryRows<{ id: number; due: string }>(
        t.database.db,
        sql`select id, sla_state->'clocks'->'first_response'->>'due' as due from conversation where entity_id = ${entityId} and sla_state is not null`,
      );
      return rows.length === CONVERSATIONS && rows;
    }, 15_000);
    const earliest = Math.min(...dues.map((d) => Date.parse(d.due)));
    // A dies just after the first timers start: some fire on A, some may be in its hands, the rest are B's.
    await new Promise((r) => setTimeout(r, Math.max(0, earliest - Date.now() + 300)));
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');

    const breaches = await waitFor(async () => {
      const rows = await queryRows<{ conversation_id: number; metric: string; due_at: string; breached_at: string }>(
        t.database.db,
        sql`select b.conversation_id, b.metric, b.due_at, b.breached_at from conversation_sla_breach b join conversation c on c.id = b.conversation_id where c.entity_id = ${entityId}`,
      );
      return rows.length >= CONVERSATIONS && rows;
    }, 40_000);
    expect(breaches).toHaveLength(CONVERSATIONS);
    expect(new Set(breaches.map((r) => r.conversation_id)).size).toBe(CONVERSATIONS);
    expect(breaches.every((r) => r.metric === 'first_response')).toBe(true);
    // Due after the kill: B alone fires them, on time.
    const afterKill = breaches.filter((r) => Date.parse(r.due_at) > killedAt + 1000);
    expect(afterKill.length).toBeGreaterThan(0);
    for (const r of afterKill) expect(Date.parse(r.breached_at) - Date.parse(r.due_at)).toBeLessThan(2000);

    // One workflow execution per breach, whichever instance published it.
    const executions = async () =>
      queryRows<{ conversation_id: string }>(
        t.database.db,
        sql`select context_json->'trigger'->>'conversation_id' as conversation_id from workflow_execution where workflow_id = ${workflowId}`,
      );
    // A breach event whose workflow job the killed instance held is taken over when that attempt expires
    // (10 s with the default ERP timeout) and maintenance next runs (every second here).
    await waitFor(async () => (await executions()).length >= CONVERSATIONS, 40_000);
    await new Promise((r) => setTimeout(r, 1500));
    const ran = await executions();
    expect(ran).toHaveLength(CONVERSATIONS);
    expect(new Set(ran.map((r) => r.conversation_id)).size).toBe(CONVERSATIONS);
  }, 120_000);
});
