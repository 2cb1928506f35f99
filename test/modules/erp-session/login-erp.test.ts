import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { makeEntity, makeMember } from '../../helpers/factories.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';
import { createDirectoryService } from '../../../src/modules/identity/directory.service.js';
import { queryRows } from '../../../src/db/client.js';

let sim: ErpSimulator;
let t: TestContext;
let off: TestContext;
let entityA: { id: number };
let entityB: { id: number };
let entityC: { id: number };

const employeeOf = async (userId: number, entityId: number) =>
  (
    await queryRows<{ is_active: boolean; erp_employee_id: number | null }>(
      t.database.db,
      sql`select is_active, erp_employee_id from employee where user_id = ${userId} and entity_id = ${entityId}`,
    )
  )[0];

beforeAll(async () => {
  sim = await startTestErp();
  t = await createTestApp({ env: erpEnv(sim, { AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP: 'true' }) });
  off = await createTestApp({ env: erpEnv(sim, { AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP: 'false' }), testDb: t.testDb });
  entityA = await makeEntity(t.database.db, 'Alpha');
  entityB = await makeEntity(t.database.db, 'Beta');
  entityC = await makeEntity(t.database.db, 'Gamma (not in the ERP)');
  await linkEntity(t.database.db, sim, entityA.id, 601);
  await linkEntity(t.database.db, sim, entityB.id, 602);
  await linkEntity(t.database.db, sim, entityC.id, 699);
});
afterEach(() => sim.controls.reset());
afterAll(async () => {
  await off.close();
  await t.close();
  await sim.close();
});

describe('membership reconciliation at login', () => {
  it('creates the membership of an entity the ERP lists as active, so the user can log into it', async () => {
    const m = await makeMember(t.database.db, { entityId: entityA.id });
    erpUserFor(sim, m, [601, 602]);
    const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entityB.id });
    expect(r.status).toBe(200);
    const row = await employeeOf(m.userId, entityB.id);
    expect(row).toMatchObject({ is_active: true });
    expect(row!.erp_employee_id).not.toBeNull();
  });

  it('deactivates a membership only on an explicit inactive answer from the ERP', async () => {
    const m = await makeMember(t.database.db, { entityId: entityA.id });
    await createDirectoryService(t.database.db).ensureEmployee({ userId: m.userId, entityId: entityB.id, name: 'x' });
    await createDirectoryService(t.database.db).ensureEmployee({ userId: m.userId, entityId: entityC.id, name: 'x' });
    const erpUser = erpUserFor(sim, m, [601, 602]);
    erpUser.memberships[1]!.active = false;
    const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entityA.id });
    expect(r.status).toBe(200);
    expect((await employeeOf(m.userId, entityB.id))!.is_active).toBe(false);
    // Entity 699 is not in the ERP's answer: untouched.
    expect((await employeeOf(m.userId, entityC.id))!.is_active).toBe(true);
    const refused = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entityB.id });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('entity_not_allowed');
  });

  it('reactivates a membership the ERP lists as active again', async () => {
    const m = await makeMember(t.database.db, { entityId: entityA.id });
    const e = await createDirectoryService(t.database.db).ensureEmployee({ userId: m.userId, entityId: entityB.id, name: 'x' });
    await t.database.executeSql('update employee set is_active = false where id = $1', [e.id]);
    erpUserFor(sim, m, [601, 602]);
    expect((await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entityB.id })).status).toBe(200);
  });

  it('changes nothing when the ERP is down or does not know the user', async () => {
    const m = await makeMember(t.database.db, { entityId: entityA.id });
    sim.controls.failStatus = 503;
    expect((await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entityA.id })).status).toBe(200);
    sim.controls.failStatus = null;
    const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId: entityA.id });
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('missing');
    expect((await employeeOf(m.userId, entityA.id))!.is_active).toBe(true);
  });
});

describe('first-login password bootstrap', () => {
  async function passwordlessUser() {
    const m = await makeMember(t.database.db, { entityId: entityA.id });
    await t.database.executeSql('update app_user set password_hash = null where id = $1', [m.userId]);
    return m;
  }

  it('sets the password when the ERP confirms the user, then the password works even with the ERP down', async () => {
    const m = await passwordlessUser();
    erpUserFor(sim, { email: m.email, password: 'erp-password-1' }, [601]);
    const r = await loginWithErp(t.app, { email: m.email, password: 'erp-password-1', entityId: entityA.id });
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('ready');
    sim.controls.failStatus = 503;
    expect((await loginWithErp(t.app, { email: m.email, password: 'erp-password-1', entityId: entityA.id })).status).toBe(200);
    expect((await loginWithErp(t.app, { email: m.email, password: 'another', entityId: entityA.id })).status).toBe(401);
  });

  it('sets a password chosen by the user when the ERP confirms them by OAuth token', async () => {
    const m = await passwordlessUser();
    erpUserFor(sim, { email: m.email, password: 'erp-side-password' }, [601]);
    const r = await loginWithErp(t.app, {
      email: m.email,
      password: 'my-new-password',
      entityId: entityA.id,
      erpAccessToken: sim.controls.issueOauthToken(m.email),
    });
    expect(r.status).toBe(200);
    expect((await loginWithErp(t.app, { email: m.email, password: 'my-new-password', entityId: entityA.id })).status).toBe(200);
  });

  it('refuses with 401 when the ERP does not confirm the user or is down, and sets nothing', async () => {
    const m = await passwordlessUser();
    erpUserFor(sim, { email: m.email, password: 'erp-password-2' }, [601]);
    const wrong = await loginWithErp(t.app, { email: m.email, password: 'not-the-erp-password', entityId: entityA.id });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_credentials');
    sim.controls.failStatus = 503;
    expect((await loginWithErp(t.app, { email: m.email, password: 'erp-password-2', entityId: entityA.id })).status).toBe(401);
    const [row] = await queryRows<{ password_hash: string | null }>(t.database.db, sql`select password_hash from app_user where id = ${m.userId}`);
    expect(row!.password_hash).toBeNull();
  });

  it('spends one argon2 verification on every refused login: without a password, with one, or unknown', async () => {
    const verifications = async () => {
      const text = (await t.app.inject('/metrics')).body;
      return Number(/^auth_password_verifications_total (\d+)/m.exec(text)?.[1] ?? NaN);
    };
    const attempt = async (email: string) => {
      const before = await verifications();
      const r = await loginWithErp(t.app, { email, password: 'not-the-password-9', entityId: entityA.id });
      expect(r.status).toBe(401);
      return (await verifications()) - before;
    };
    const without = await passwordlessUser();
    erpUserFor(sim, { email: without.email, password: 'erp-password-3' }, [601]);
    const withPassword = await makeMember(t.database.db, { entityId: entityA.id });
    // The same observable work on each path: a user without a password is not told apart by a faster answer.
    expect(await attempt(without.email)).toBe(1);
    expect(await attempt(withPassword.email)).toBe(1);
    expect(await attempt(`nobody-${Date.now()}@example.test`)).toBe(1);
  });

  it('refuses a first password shorter than 8 characters with 400 password_too_short', async () => {
    const m = await passwordlessUser();
    erpUserFor(sim, { email: m.email, password: 'short' }, [601]);
    const r = await loginWithErp(t.app, { email: m.email, password: 'short', entityId: entityA.id });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('password_too_short');
  });

  it('refuses a user without a password when the bootstrap flag is off', async () => {
    const m = await passwordlessUser();
    erpUserFor(sim, { email: m.email, password: 'erp-password-3' }, [601]);
    const r = await loginWithErp(off.app, { email: m.email, password: 'erp-password-3', entityId: entityA.id });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_credentials');
  });
});
