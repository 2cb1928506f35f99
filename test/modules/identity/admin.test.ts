import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';

let t: TestContext;
let entityId: number;
let otherEntityId: number;
let admin: Member;
let adminToken: string;
let superToken: string;

// The administrator also holds every code its tests grant: delegated administration grants only held codes.
const ADMIN_CODES = ['roles.create', 'roles.edit', 'subscriptions.create', 'subscriptions.edit', 'orders.create', 'leads.view', 'groups.view', 'contacts.view'];

beforeAll(async () => {
  t = await createTestApp();
  entityId = (await makeEntity(t.database.db)).id;
  otherEntityId = (await makeEntity(t.database.db)).id;
  admin = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ADMIN_CODES });
  adminToken = await tokenFor(t.app, admin);
  superToken = await tokenFor(t.app, await makeMember(t.database.db, { conversations: 'restricted', entityId, superAdmin: true }));
});
afterAll(async () => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

describe('roles', () => {
  it('creates an entity role with its base codes and lists it with the global roles', async () => {
    const res = await call('POST', '/api/roles', adminToken, { name: 'cashier', permissions: ['orders.create', 'orders.view'] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'cashier', scope: 'entity', permissions: ['orders.create', 'orders.view'] });
    const list = (await call('GET', '/api/roles', adminToken)).json().data.map((r: { name: string }) => r.name);
    expect(list).toEqual(expect.arrayContaining(['cashier', 'super_admin']));
  });

  it('rejects unknown permission codes with 400 naming each one', async () => {
    const res = await call('POST', '/api/roles', adminToken, { name: 'bad', permissions: ['leads.view', 'leads.fly', 'x'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        { field: '/body/permissions/1', message: 'unknown permission code leads.fly' },
        { field: '/body/permissions/2', message: 'unknown permission code x' },
      ],
    });
    const names = (await call('GET', '/api/roles', adminToken)).json().data.map((r: { name: string }) => r.name);
    expect(names).not.toContain('bad');
  });

  it('rejects a missing name and unknown fields with 400', async () => {
    const res = await call('POST', '/api/roles', adminToken, { permissions: [], colour: 'red' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['/body/name', '/body/colour']));
  });

  it('answers 409 for a duplicate role name in the entity', async () => {
    await call('POST', '/api/roles', adminToken, { name: 'dup', permissions: [] });
    const res = await call('POST', '/api/roles', adminToken, { name: 'dup', permissions: [] });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('already_exists');
  });

  it('lets only a super_admin create a global or super_admin role', async () => {
    const global = await call('POST', '/api/roles', adminToken, { name: 'global-x', permissions: [], scope: 'global' });
    expect(global.statusCode).toBe(403);
    expect(global.json().code).toBe('super_admin_required');
    expect((await call('POST', '/api/roles', superToken, { name: 'global-x', permissions: [], scope: 'global' })).statusCode).toBe(201);
  });

  it('updates name and codes, and refuses to edit the global super_admin role without being super_admin', async () => {
    const created = (await call('POST', '/api/roles', adminToken, { name: 'temp', permissions: ['leads.view'] })).json();
    const res = await call('PATCH', `/api/roles/${created.id}`, adminToken, { name: 'temp2', permissions: ['groups.view'] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'temp2', permissions: ['groups.view'] });
    const superRole = (await call('GET', '/api/roles', adminToken)).json().data.find((r: { name: string }) => r.name === 'super_admin');
    const denied = await call('PATCH', `/api/roles/${superRole.id}`, adminToken, { permissions: [] });
    expect(denied.statusCode).toBe(403);
  });

  it("answers 404 for another entity's role, as if it did not exist", async () => {
    const otherAdmin = await makeMember(t.database.db, { conversations: 'restricted', entityId: otherEntityId, codes: ADMIN_CODES });
    const foreign = (await call('POST', '/api/roles', await tokenFor(t.app, otherAdmin), { name: 'foreign', permissions: [] })).json();
    expect((await call('GET', `/api/roles/${foreign.id}`, adminToken)).statusCode).toBe(404);
    const patch = await call('PATCH', `/api/roles/${foreign.id}`, adminToken, { name: 'stolen' });
    expect(patch.statusCode).toBe(404);
    expect(patch.json().code).toBe('not_found');
    const names = (await call('GET', '/api/roles', adminToken)).json().data.map((r: { name: string }) => r.name);
    expect(names).not.toContain('foreign');
  });

  it.each([
    ['GET', '/api/roles', 'roles.view'],
    ['POST', '/api/roles', 'roles.create'],
    ['PATCH', '/api/roles/1', 'roles.edit'],
  ] as const)('%s %s needs %s', async (method, url, code) => {
    const token = await tokenFor(t.app, await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'] }));
    const res = await call(method, url, token, method === 'GET' ? undefined : { name: 'n', permissions: [] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'permission_denied', permission: code });
  });
});

describe('subscriptions', () => {
  it('subscribes an employee to a role with overrides that take effect on the next request', async () => {
    const role = (await call('POST', '/api/roles', adminToken, { name: 'support', permissions: ['contacts.view'] })).json();
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId });
    const targetToken = await tokenFor(t.app, target);
    const res = await call('POST', '/api/subscriptions', adminToken, {
      employee_id: target.employeeId,
      role_id: role.id,
      overrides: [{ code: 'leads.view', effect: 'ALLOW' }],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      subject: 'employee',
      scope: 'entity',
      entity_id: entityId,
      role: { id: role.id },
      overrides: [{ code: 'leads.view', effect: 'ALLOW' }],
    });
    expect((await call('GET', '/api/permissions/me', targetToken)).json().permissions).toEqual(['contacts.view', 'leads.view']);

    const patched = await call('PATCH', `/api/subscriptions/${res.json().id}`, adminToken, { overrides: [{ code: 'contacts.view', effect: 'DENY' }] });
    expect(patched.statusCode).toBe(200);
    expect((await call('GET', '/api/permissions/me', targetToken)).json().permissions).toEqual([]);
  });

  it('rejects a body with both or neither subject, and unknown override codes, changing nothing', async () => {
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'] });
    const both = await call('POST', '/api/subscriptions', adminToken, { employee_id: target.employeeId, user_id: target.userId, role_id: 1 });
    expect(both.statusCode).toBe(400);
    const bad = await call('PATCH', `/api/subscriptions/${target.subscriptionId}`, adminToken, {
      overrides: [
        { code: 'leads.view', effect: 'DENY' },
        { code: 'nope', effect: 'ALLOW' },
      ],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ field: '/body/overrides/1', message: 'unknown permission code nope' }]);
    const after = (await call('GET', `/api/subscriptions/${target.subscriptionId}`, superToken)).json();
    expect(after.overrides).toEqual([]);
  });

  it('answers 409 when the employee already has a subscription', async () => {
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'] });
    const res = await call('POST', '/api/subscriptions', adminToken, { employee_id: target.employeeId, role_id: target.roleId });
    expect(res.statusCode).toBe(409);
  });

  it('lets only a super_admin grant super_admin or create a global subscription', async () => {
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId });
    const superRole = (await call('GET', '/api/roles', adminToken)).json().data.find((r: { name: string }) => r.name === 'super_admin');
    const denied = await call('POST', '/api/subscriptions', adminToken, { employee_id: target.employeeId, role_id: superRole.id });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('super_admin_required');
    const globalDenied = await call('POST', '/api/subscriptions', adminToken, { user_id: target.userId, scope: 'global', role_id: superRole.id });
    expect(globalDenied.statusCode).toBe(403);
    const granted = await call('POST', '/api/subscriptions', superToken, { user_id: target.userId, scope: 'global', role_id: superRole.id });
    expect(granted.statusCode).toBe(201);
    expect(granted.json()).toMatchObject({ scope: 'global', entity_id: null, subject: 'user' });
  });

  it("refuses another entity's employee and hides other entities' subscriptions", async () => {
    const foreign = await makeMember(t.database.db, { conversations: 'restricted', entityId: otherEntityId, codes: ['leads.view'] });
    const role = (await call('POST', '/api/roles', adminToken, { name: 'r-foreign', permissions: [] })).json();
    const res = await call('POST', '/api/subscriptions', adminToken, { employee_id: foreign.employeeId, role_id: role.id });
    expect(res.statusCode).toBe(404);
    expect((await call('GET', `/api/subscriptions/${foreign.subscriptionId}`, adminToken)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/subscriptions/${foreign.subscriptionId}`, adminToken, { overrides: [] })).statusCode).toBe(404);
    const listed = (await call('GET', '/api/subscriptions', superToken)).json().data.map((s: { id: number }) => s.id);
    expect(listed).not.toContain(foreign.subscriptionId);
  });

  it('refuses a role of another entity', async () => {
    const otherAdmin = await makeMember(t.database.db, { conversations: 'restricted', entityId: otherEntityId, codes: ADMIN_CODES });
    const foreignRole = (await call('POST', '/api/roles', await tokenFor(t.app, otherAdmin), { name: 'theirs', permissions: ['roles.view'] })).json();
    const target = await makeMember(t.database.db, { conversations: 'restricted', entityId });
    const res = await call('POST', '/api/subscriptions', adminToken, { employee_id: target.employeeId, role_id: foreignRole.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('unknown_role');
  });
});
