import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, type Member } from '../../helpers/factories.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';
import { resetDatabase } from '../../helpers/test-db.js';

let sim: ErpSimulator;
let t: TestContext;
let m: Member;
let token: string;
const HEADER = 'x-catalog-cache';

const get = (app: TestContext['app'], url: string, tok = token) => app.inject({ method: 'GET', url, headers: bearer(tok) });

async function freshWorld() {
  await resetDatabase(t.database);
  // A restart empties the memory level; the database level survives in the same database.
  await t.app.close();
  t = await createTestApp({ env: erpEnv(sim), testDb: t.testDb });
  const entity = await makeEntity(t.database.db, 'Alpha');
  await linkEntity(t.database.db, sim, entity.id, 801);
  m = await makeMember(t.database.db, { entityId: entity.id });
  erpUserFor(sim, m, [801]);
  token = (await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entity.id })).token;
}

beforeAll(async () => {
  sim = await startTestErp();
  t = await createTestApp({ env: erpEnv(sim) });
});
afterEach(() => {
  vi.useRealTimers();
  sim.controls.reset();
});
afterAll(async () => {
  // After a restart `t` shares the first app's database, which its own close leaves in place.
  await t.close();
  await t.testDb.close();
  await sim.close();
});

describe('catalog contents', () => {
  it("serves the ERP's currencies, Guatemala's 22 departments and 340 municipalities, bare and under /api", async () => {
    await freshWorld();
    const currencies = await get(t.app, '/catalogs/currencies');
    expect(currencies.statusCode).toBe(200);
    expect(currencies.json().data).toContainEqual({ code: 'GTQ', name: 'Quetzal', symbol: 'Q', decimals: 2 });
    const departments = await get(t.app, '/api/catalogs/departments');
    expect(departments.json().data).toHaveLength(22);
    expect(departments.json().data[0]).toEqual({ code: '01', name: 'Guatemala' });
    const all = await get(t.app, '/catalogs/municipalities');
    expect(all.json().data).toHaveLength(340);
    const petén = await get(t.app, '/catalogs/municipalities?department=17');
    expect(petén.json().data).toHaveLength(14);
    expect(petén.json().data.every((x: { department_code: string }) => x.department_code === '17')).toBe(true);
    expect(petén.json().data).toContainEqual({ code: '1714', name: 'El Chal', department_code: '17' });
  });

  it('answers 400 for a malformed department filter and 401 without a token', async () => {
    const bad = await get(t.app, '/catalogs/municipalities?department=abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
    const anon = await t.app.inject({ method: 'GET', url: '/catalogs/currencies' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().code).toBe('unauthenticated');
  });
});

describe('two-level cache', () => {
  it('misses once, then hits memory without calling the ERP', async () => {
    await freshWorld();
    const first = await get(t.app, '/catalogs/currencies');
    expect(first.headers[HEADER]).toBe('miss');
    const calls = sim.controls.counts['gql:currencies'];
    const second = await get(t.app, '/catalogs/currencies');
    expect(second.headers[HEADER]).toBe('hit-memory');
    expect(second.json()).toEqual(first.json());
    expect(sim.controls.counts['gql:currencies']).toBe(calls);
  });

  it('fetches once for concurrent misses of one key', async () => {
    await freshWorld();
    sim.controls.latencyMs = 50;
    const before = sim.controls.counts['gql:departments'] ?? 0;
    const all = await Promise.all(Array.from({ length: 5 }, () => get(t.app, '/catalogs/departments')));
    expect(all.every((r) => r.statusCode === 200)).toBe(true);
    expect((sim.controls.counts['gql:departments'] ?? 0) - before).toBe(1);
  });

  it('serves the database level after a restart, without the ERP', async () => {
    await freshWorld();
    expect((await get(t.app, '/catalogs/departments')).headers[HEADER]).toBe('miss');
    await t.app.close();
    t = await createTestApp({ env: erpEnv(sim), testDb: t.testDb });
    sim.controls.failStatus = 503;
    const res = await get(t.app, '/catalogs/departments');
    expect(res.statusCode).toBe(200);
    expect(res.headers[HEADER]).toBe('hit-database');
    expect(res.json().data).toHaveLength(22);
    expect((await get(t.app, '/catalogs/departments')).headers[HEADER]).toBe('hit-memory');
  });

  it('serves a stale memory entry at once and revalidates it in the background', async () => {
    await freshWorld();
    await get(t.app, '/catalogs/currencies');
    const before = sim.controls.counts['gql:currencies'] ?? 0;
    sim.data.currencies.push({ code: 'HNL', name: 'Lempira', symbol: 'L', decimals: 2 });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    const stale = await get(t.app, '/catalogs/currencies');
    expect(stale.headers[HEADER]).toBe('stale-while-revalidate');
    expect(stale.json().data.map((c: { code: string }) => c.code)).not.toContain('HNL');
    await vi.waitFor(() => expect((sim.controls.counts['gql:currencies'] ?? 0) - before).toBe(1));
    await vi.waitFor(async () => expect((await get(t.app, '/catalogs/currencies')).headers[HEADER]).toBe('hit-memory'));
    expect((await get(t.app, '/catalogs/currencies')).json().data.map((c: { code: string }) => c.code)).toContain('HNL');
    sim.data.currencies.pop();
  });

  it('refetches when the database entry expired, and serves the expired entry marked stale-if-error when the ERP is down', async () => {
    await freshWorld();
    await get(t.app, '/catalogs/currencies');
    await t.database.executeSql(`update external_catalog_caches set expires_at = now() - interval '1 day' where key = 'currencies'`);
    await t.app.close();
    t = await createTestApp({ env: erpEnv(sim), testDb: t.testDb });
    sim.controls.failStatus = 500;
    const res = await get(t.app, '/catalogs/currencies');
    expect(res.statusCode).toBe(200);
    expect(res.headers[HEADER]).toBe('stale-if-error');
    expect(res.json().data).toContainEqual(expect.objectContaining({ code: 'GTQ' }));
    sim.controls.failStatus = null;

    await t.app.close();
    t = await createTestApp({ env: erpEnv(sim), testDb: t.testDb });
    const refreshed = await get(t.app, '/catalogs/currencies');
    expect(refreshed.headers[HEADER]).toBe('miss');
  });

  it('answers 503 erp_unavailable when nothing is cached and the ERP is down', async () => {
    await freshWorld();
    sim.controls.failStatus = 503;
    const res = await get(t.app, '/catalogs/municipalities');
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('erp_unavailable');
  });

  it('answers 428 erp_session_required when nothing is cached and the caller has no ERP session', async () => {
    await freshWorld();
    const other = await makeMember(t.database.db, { entityId: m.entityId });
    const res = await get(
      t.app,
      '/catalogs/currencies',
      (await loginWithErp(t.app, { email: other.email, password: other.password, entityId: m.entityId })).token,
    );
    expect(res.statusCode).toBe(428);
    expect(res.json()).toMatchObject({ code: 'erp_session_required', erp_session: { status: 'missing' } });
    expect((await get(t.app, '/catalogs/currencies')).statusCode).toBe(200);
  });
});
