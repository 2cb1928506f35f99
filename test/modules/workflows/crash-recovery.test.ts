/**
 * A service process SIGKILLed in the middle of an execution: a second process on the same PostgreSQL
 * database resumes it from its queued step, and every step's effect happens once (the customer's
 * webhook endpoint receives each step exactly once). Needs several processes on one database, so it
 * runs only when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { waitFor } from '../../helpers/interactions.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../helpers/https-receiver.js';
import { startService, type ServiceProcess } from '../../helpers/service-process.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
type Row = Record<string, any>;

describe.runIf(process.env.TEST_DATABASE_URL)('workflow execution after a crash (SIGKILL)', () => {
  let testDb: TestDatabase;
  let receiver: HttpsReceiver;
  let t: TestContext;
  let token: string;
  const services: ServiceProcess[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    receiver = await startHttpsReceiver();
    env = { WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', WORKFLOWS_WEBHOOK_CA_FILE: receiver.caFile };
    // An API-only instance (no workers) to set up and read; the service processes run the steps.
    t = await createTestApp({ testDb, env, startQueue: false });
    const entityId = (await makeEntity(t.database.db, 'Crash')).id;
    token = await tokenFor(t.app, await makeMember(t.database.db, { entityId, codes: ['workflows.manage', 'workflows.execute'] }));
  });
  afterAll(async () => {
    for (const s of services) await s.dispose();
    await t?.close();
    await receiver?.close();
    await testDb?.close();
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  const start = async (name: string) => {
    const s = await startService(testDb.url!, name, env);
    services.push(s);
    return s;
  };

  it('resumes on another process and performs each step once', async () => {
    const created = await api('POST', '/api/workflows', {
      name: 'Tres pasos',
      preset_code: 'manual',
      steps: [
        { key: 'first', action: 'webhook', url: `${receiver.url}/first` },
        { key: 'pause', action: 'wait', seconds: 3 },
        { key: 'second', action: 'webhook', url: `${receiver.url}/second` },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const first = await start('wf-crash-1');
    const run = await api('POST', `/api/workflows/${id}/execute`, {});
    expect(run.statusCode).toBe(202);
    const executionId = run.json().id as number;
    const steps = async () => ((await api('GET', `/api/workflows/${id}/executions/${executionId}`)).json().steps as Row[]) ?? [];

    // Killed during the wait: `first` and `pause` are done, `second` is queued for later.
    await waitFor(async () => ((await steps()).some((s) => s.step_key === 'pause' && s.status === 'succeeded') ? true : undefined), 20_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(receiver.calls.map((c) => c.path)).toEqual(['/first']);

    await start('wf-crash-2');
    const done = await waitFor(async () => {
      const e = (await api('GET', `/api/workflows/${id}/executions/${executionId}`)).json<Row>();
      return e.status !== 'running' ? e : undefined;
    }, 30_000);
    expect(done.status).toBe('succeeded');
    expect(receiver.calls.map((c) => c.path)).toEqual(['/first', '/second']);
    expect((done.steps as Row[]).map((s) => [s.step_key, s.visit, s.status, s.attempts])).toEqual([
      ['first', 1, 'succeeded', 1],
      ['pause', 1, 'succeeded', 1],
      ['second', 1, 'succeeded', 1],
    ]);
  }, 90_000);
});
