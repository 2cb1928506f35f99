/**
 * A service process SIGKILLed in the middle of an execution: a second process on the same PostgreSQL
 * database resumes it. Killed during a wait, the next step is queued: the customer's webhook endpoint
 * receives each step exactly once. Killed while a webhook step's call is in flight, the step runs again
 * once its attempt expires: the endpoint receives that step again with the same `Idempotency-Key`
 * (docs/api/workflows.md: at least once, the same key on every attempt of a step visit) and the execution
 * records the visit once. Needs several processes on one database, so it runs only when
 * TEST_DATABASE_URL is set.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
    // The queue's maintenance looks for lost attempts every second; a step attempt counts as lost once it has
    // run for three webhook timeouts (10 s at the least), so a second process takes it over after that.
    env = {
      WORKFLOWS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
      WORKFLOWS_WEBHOOK_CA_FILE: receiver.caFile,
      WORKFLOWS_WEBHOOK_TIMEOUT_MS: '3000',
      QUEUE_MAINTENANCE_INTERVAL_SECONDS: '1',
    };
    // An API-only instance (no workers) to set up and read; the service processes run the steps.
    t = await createTestApp({ testDb, env, startQueue: false });
    const entityId = (await makeEntity(t.database.db, 'Crash')).id;
    token = await tokenFor(t.app, await makeMember(t.database.db, { entityId, codes: ['workflows.manage', 'workflows.execute'] }));
  });
  // Each test starts its own processes and sees only its own calls.
  afterEach(async () => {
    for (const s of services.splice(0)) await s.dispose();
    receiver.calls.length = 0;
  });
  afterAll(async () => {
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

  it('calls a webhook step in flight when its process dies again with the same Idempotency-Key from another process, and records the visit once', async () => {
    receiver.hold(1);
    const created = await api('POST', '/api/workflows', {
      name: 'Aviso al ERP',
      preset_code: 'manual',
      steps: [
        { key: 'notify', action: 'webhook', url: `${receiver.url}/notify` },
        { key: 'confirm', action: 'webhook', url: `${receiver.url}/confirm` },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const first = await start('wf-inflight-1');
    const run = await api('POST', `/api/workflows/${id}/execute`, {});
    expect(run.statusCode).toBe(202);
    const executionId = run.json().id as number;
    const execution = async () => (await api('GET', `/api/workflows/${id}/executions/${executionId}`)).json<Row>();

    // The endpoint holds the call: the step's effect is in flight when the process dies.
    await waitFor(() => receiver.calls.length > 0, 20_000);
    const during = await execution();
    expect(during.status).toBe('running');
    expect((during.steps as Row[]).map((s) => [s.step_key, s.visit, s.status, s.attempts])).toEqual([['notify', 1, 'running', 1]]);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(receiver.calls.map((c) => [c.path, c.answered])).toEqual([['/notify', false]]);

    await start('wf-inflight-2');
    const done = await waitFor(async () => {
      await new Promise((r) => setTimeout(r, 250));
      const e = await execution();
      return e.status !== 'running' ? e : undefined;
    }, 60_000);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');

    // At least once: the unanswered call is made again, with the same key and body; the next step once.
    const calls = receiver.calls;
    expect(calls.map((c) => [c.path, c.answered])).toEqual([
      ['/notify', false],
      ['/notify', true],
      ['/confirm', true],
    ]);
    const key = calls[0]!.headers['idempotency-key'];
    expect(typeof key === 'string' && key.length > 0).toBe(true);
    expect(calls[1]!.headers['idempotency-key']).toBe(key);
    expect(calls[2]!.headers['idempotency-key']).not.toBe(key);
    expect(calls[1]!.body).toEqual(calls[0]!.body);
    expect(calls[0]!.body).toMatchObject({ workflow_id: id, execution_id: executionId, step_key: 'notify' });
    expect(calls[2]!.body).toMatchObject({ workflow_id: id, execution_id: executionId, step_key: 'confirm' });
    // One visit per step in the run history; the second attempt of `notify` is counted on its visit.
    expect((done.steps as Row[]).map((s) => [s.step_key, s.visit, s.status, s.attempts, s.result])).toEqual([
      ['notify', 1, 'succeeded', 2, { status: 200 }],
      ['confirm', 1, 'succeeded', 1, { status: 200 }],
    ]);
    expect(done.error).toBeNull();
  }, 120_000);
});
