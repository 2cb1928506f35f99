import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';

let t: TestContext;
let entityId: number;
let admin: Member;
let adminToken: string;
let superToken: string;

// An entity administrator who may edit roles and subscriptions and otherwise sees leads only.
const ADMIN_CODES = ['roles.create', 'roles.edit', 'subscriptions.create', 'subscriptions.edit', 'leads.view'];

beforeAll(async () => {
  t = await createTestApp();
  entityId = (await makeEntity(t.database.db)).id;
  superToken = await tokenFor(t.app, await makeMember(t.database.db, { conversations: 'restricted', entityId, superAdmin: true }));
});
beforeEach(async () => {
  admin = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ADMIN_CODES });
  adminToken = await tokenFor(t.app, admin);
});
afterAll(async () => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const permissionsOf = async (member: Member) =>
  (await call('GET', '/api/permissions/me', await tokenFor(t.app, member))).json<{ permissions: string[] }>().permissions;

describe('delegated administration', () => {
  it('refuses a role with codes the caller does not hold, naming them, and creates nothing', async () => {
    const res = await call('POST', '/api/roles', adminToken, { name: 'exporter', permissions: ['leads.view', 'cartera.export_excel'] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'grant_exceeds_own_permissions', codes: ['cartera.export_excel'] });
    const names = (await call('GET', '/api/roles', superToken)).json().data.map((r: { name: string }) => r.name);
    expect(names).not.toContain('exporter');
  });

  it('counts the codes a granted code implies: groups.create brings groups.view', async () => {
    const holder = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['roles.create', 'groups.create'] });
    const ok = await call('POST', '/api/roles', await tokenFor(t.app, holder), { name: `g-${holder.userId}`, permissions: ['groups.create'] });
    expect(ok.statusCode).toBe(201);
    const res = await call('POST', '/api/roles', adminToken, { name: 'groups-maker', permissions: ['groups.create'] });
    expect(res.statusCode).toBe(403);
    expect(res.json().codes).toEqual(['groups.create', 'groups.view']);
  });

  it("refuses to add unheld codes to an existing role and leaves the role's codes as they were", async () => {
    const role = (await call('POST', '/api/roles', adminToken, { name: `viewer-${admin.userId}`, permissions: ['leads.view'] })).json();
    const res = await call('PATCH', `/api/roles/${role.id}`, adminToken, {
      permissions: ['leads.view', 'roles.view', 'subscriptions.view', 'permissions.catalog.view'],
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'grant_exceeds_own_permissions', codes: ['permissions.catalog.view'] });
    expect((await call('GET', `/api/roles/${role.id}`, adminToken)).json().permissions).toEqual(['leads.view']);
  });

  it('refuses to change the role the caller holds', async () => {
    const res = await call('PATCH', `/api/roles/${admin.roleId}`, adminToken, { permissions: ['leads.view'] });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('own_access_locked');
    expect((await permissionsOf(admin)).sort()).toContain('subscriptions.edit');
  });

  it('refuses to assign a role whose codes the caller does not hold', async () => {
    const broad = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['cartera.export_excel'] });
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId });
    const res = await call('POST', '/api/subscriptions', adminToken, { employee_id: target.employeeId, role_id: broad.roleId });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'grant_exceeds_own_permissions', codes: ['cartera.export_excel'] });
    expect(await permissionsOf(target)).toEqual([]);
  });

  it('refuses an ALLOW override of an unheld code but accepts a DENY override of any code', async () => {
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view', 'contacts.view'] });
    const allow = await call('PATCH', `/api/subscriptions/${target.subscriptionId}`, adminToken, {
      overrides: [{ code: 'cartera.export_excel', effect: 'ALLOW' }],
    });
    expect(allow.statusCode).toBe(403);
    expect(allow.json().code).toBe('grant_exceeds_own_permissions');
    expect((await permissionsOf(target)).sort()).toEqual(['contacts.view', 'leads.view']);
    const deny = await call('PATCH', `/api/subscriptions/${target.subscriptionId}`, adminToken, { overrides: [{ code: 'contacts.view', effect: 'DENY' }] });
    expect(deny.statusCode).toBe(200);
    expect(await permissionsOf(target)).toEqual(['leads.view']);
  });

  it("refuses changes to the caller's own subscriptions, at the employee level and at the user level", async () => {
    const own = await call('PATCH', `/api/subscriptions/${admin.subscriptionId}`, adminToken, { overrides: [{ code: 'leads.view', effect: 'DENY' }] });
    expect(own.statusCode).toBe(403);
    expect(own.json().code).toBe('own_access_locked');
    const userLevel = await call('POST', '/api/subscriptions', adminToken, { user_id: admin.userId, role_id: admin.roleId });
    expect(userLevel.statusCode).toBe(403);
    expect(userLevel.json().code).toBe('own_access_locked');
    expect((await permissionsOf(admin)).sort()).toEqual([...ADMIN_CODES, 'roles.view', 'subscriptions.view'].sort());
  });

  it("refuses to touch a super_admin's subscriptions, a DENY override included", async () => {
    const sa = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'], superAdmin: true });
    const deny = await call('PATCH', `/api/subscriptions/${sa.subscriptionId}`, adminToken, { overrides: [{ code: 'leads.view', effect: 'DENY' }] });
    expect(deny.statusCode).toBe(403);
    expect(deny.json().code).toBe('super_admin_protected');
    const created = await call('POST', '/api/subscriptions', adminToken, { user_id: sa.userId, role_id: admin.roleId });
    expect(created.statusCode).toBe(403);
    expect(created.json().code).toBe('super_admin_protected');
    expect((await call('GET', `/api/subscriptions/${sa.subscriptionId}`, superToken)).json().overrides).toEqual([]);
  });

  it('lets a super_admin do each of these', async () => {
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'] });
    const role = await call('POST', '/api/roles', superToken, { name: `wide-${target.userId}`, permissions: ['cartera.export_excel'] });
    expect(role.statusCode).toBe(201);
    const allow = await call('PATCH', `/api/subscriptions/${target.subscriptionId}`, superToken, {
      overrides: [{ code: 'cartera.export_excel', effect: 'ALLOW' }],
    });
    expect(allow.statusCode).toBe(200);
    expect((await permissionsOf(target)).sort()).toEqual(['cartera.export_excel', 'leads.view']);
  });

  it('still explains every code of the caller with ?explain=true', async () => {
    const res = await call('GET', '/api/permissions/me?explain=true', adminToken);
    expect(res.statusCode).toBe(200);
    const explained = res
      .json()
      .explain.granted.map((g: { code: string }) => g.code)
      .sort();
    expect(explained).toEqual([...ADMIN_CODES, 'roles.view', 'subscriptions.view'].sort());
  });
});
