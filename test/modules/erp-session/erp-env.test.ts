import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity, makeMember, type Member } from '../../helpers/factories.js';
import { erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';

let sim: ErpSimulator;
let testDb: TestDatabase;
let m: Member;
const apps: TestContext[] = [];
const unreachable = 'http://127.0.0.1:1';

async function appFor(env: Record<string, string>) {
  const t = await createTestApp({ env: { ERP_TIMEOUT_MS: '1000', LOGIN_RATE_LIMIT_MAX: '1000', ...env }, testDb });
  apps.push(t);
  return t;
}

beforeAll(async () => {
  sim = await startTestErp();
  testDb = await createTestDatabase();
  const entity = await makeEntity(testDb.database.db, 'Alpha');
  await linkEntity(testDb.database.db, sim, entity.id, 301);
  m = await makeMember(testDb.database.db, { entityId: entity.id });
  erpUserFor(sim, m, [301]);
});
afterAll(async () => {
  for (const t of apps) await t.close();
  await testDb.close();
  await sim.close();
});

describe('ERP_ENV selects the ERP base URL', () => {
  it.each([
    ['prod', { ERP_URL: 'SIM', ERP_STAGING_URL: unreachable }],
    ['preview', { ERP_URL: unreachable, ERP_STAGING_URL: 'SIM' }],
    ['dev', { ERP_URL: unreachable, ERP_STAGING_URL: 'SIM' }],
  ])('%s talks to the right ERP', async (erpEnv, urls) => {
    const env = Object.fromEntries(Object.entries(urls).map(([k, v]) => [k, v === 'SIM' ? sim.url : v]));
    const t = await appFor({ ERP_ENV: erpEnv, AUTH_ERP: sim.url, ...env });
    const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: m.entityId });
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('ready');
  });

  it('still logs in when the selected ERP is unreachable, keeping the stored session as it was', async () => {
    const t = await appFor({ ERP_ENV: 'prod', ERP_URL: unreachable, ERP_STAGING_URL: sim.url });
    const calls = { ...sim.controls.counts };
    const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: m.entityId });
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('ready');
    expect(sim.controls.counts).toEqual(calls);
  });

  it('still logs in when the ERP answers 401 to everything', async () => {
    const t = await appFor({ ERP_URL: sim.url, ERP_STAGING_URL: sim.url });
    sim.controls.failStatus = 401;
    try {
      const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: m.entityId });
      expect(r.status).toBe(200);
      expect(r.erpSession.status).toBe('missing');
    } finally {
      sim.controls.reset();
    }
  });
});
