import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { recordQueries } from '../../helpers/query-counter.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { createDirectoryService } from '../../../src/modules/identity/directory.service.js';
import { ALL_PERMISSION_CODES, SCHEMA_VERSION } from '../../../src/platform/permissions/catalog.js';
import { Errors } from 'typebox/value';
import { MeResponse } from '../../../src/modules/permissions/permission.schemas.js';

let t: TestContext;
let entityId: number;
let otherEntityId: number;

beforeAll(async () => {
  t = await createTestApp();
  entityId = (await makeEntity(t.database.db)).id;
  otherEntityId = (await makeEntity(t.database.db)).id;
});
afterAll(async () => t.close());

const get = async (url: string, token: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...bearer(token), ...headers } });

describe('GET /api/permissions/me', () => {
  it('returns exactly the role codes plus their implications, with the role and its source', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.create', 'contacts.edit'] });
    const res = await get('/api/permissions/me', await tokenFor(t.app, m));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.permissions).toEqual(['contacts.edit', 'contacts.view', 'leads.create', 'leads.view']);
    expect(body.role).toMatchObject({ id: m.roleId, source: 'employee', subscription_id: m.subscriptionId });
    expect(body.schemaVersion).toBe(SCHEMA_VERSION);
    expect(body.capabilities.registros['leads.view']).toBe(true);
    expect(body.capabilities.registros['groups.view']).toBe(false);
    expect(body.explain).toBeUndefined();
  });

  it('answers without explain exactly what the response schema writes with it, less the explanation', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.create', 'contacts.edit'] });
    const token = await tokenFor(t.app, m);
    // The explained answer goes through the route's compiled serializer; the plain one is assembled from text.
    const { explain, ...rest } = (await get('/api/permissions/me?explain=true', token)).json();
    expect(explain.granted.length).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) {
      const res = await get('/api/permissions/me', token);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Errors(MeResponse, res.json())).toEqual([]);
      expect(res.body).toBe(JSON.stringify(rest));
    }
  });

  it('gives a global super_admin every code', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, superAdmin: true });
    const body = (await get('/api/permissions/me', await tokenFor(t.app, m))).json();
    expect(body.super_admin).toBe(true);
    expect(body.permissions).toEqual([...ALL_PERMISSION_CODES].sort());
  });

  it('uses the user-entity subscription when the employee has none, and the global one last', async () => {
    const dir = createDirectoryService(t.database.db);
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId });
    const globalRole = await dir.ensureRole({ entityId: null, name: 'auditor', permissions: ['roles.view'] });
    await dir.subscribe({ userId: m.userId, entityId: null, roleId: globalRole.id });
    const token = await tokenFor(t.app, m);
    expect((await get('/api/permissions/me', token)).json()).toMatchObject({ permissions: ['roles.view'], role: { source: 'global' } });

    const entityRole = await dir.ensureRole({ entityId, name: 'viewer', permissions: ['groups.view'] });
    await dir.subscribe({ userId: m.userId, entityId, roleId: entityRole.id });
    expect((await get('/api/permissions/me', token)).json()).toMatchObject({ permissions: ['groups.view'], role: { source: 'user' } });

    const employeeRole = await dir.ensureRole({ entityId, name: 'agent', permissions: ['contacts.view'] });
    await dir.subscribe({ employeeId: m.employeeId, entityId, roleId: employeeRole.id });
    expect((await get('/api/permissions/me', token)).json()).toMatchObject({ permissions: ['contacts.view'], role: { source: 'employee' } });
  });

  it('applies a permission change to the very next request', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['groups.view'] });
    const token = await tokenFor(t.app, m);
    expect((await get('/api/permissions', token)).statusCode).toBe(403);
    await createDirectoryService(t.database.db).subscribe({
      employeeId: m.employeeId,
      entityId,
      roleId: m.roleId!,
      overrides: [{ code: 'permissions.catalog.view', effect: 'ALLOW' }],
    });
    expect((await get('/api/permissions', token)).statusCode).toBe(200);
    await createDirectoryService(t.database.db).subscribe({ employeeId: m.employeeId, entityId, roleId: m.roleId!, overrides: [] });
    expect((await get('/api/permissions', token)).statusCode).toBe(403);
  });

  it('explains each code: role base, ALLOW override, implication, and which subscription denied a code', async () => {
    const m = await makeMember(t.database.db, {
      conversations: 'restricted',
      entityId,
      codes: ['leads.create', 'groups.edit'],
      overrides: [
        { code: 'roles.view', effect: 'ALLOW' },
        { code: 'groups.view', effect: 'DENY' },
      ],
    });
    const body = (await get('/api/permissions/me?explain=true', await tokenFor(t.app, m))).json();
    expect(body.permissions).toEqual(['groups.edit', 'leads.create', 'leads.view', 'roles.view']);
    const reasons = Object.fromEntries(body.explain.granted.map((g: { code: string; reason: unknown }) => [g.code, g.reason]));
    expect(reasons).toEqual({
      'groups.edit': { source: 'role', role_id: m.roleId, role_name: expect.any(String) },
      'leads.create': { source: 'role', role_id: m.roleId, role_name: expect.any(String) },
      'leads.view': { source: 'implied', by: 'leads.create' },
      'roles.view': { source: 'allow_override', subscription_id: m.subscriptionId },
    });
    expect(body.explain.denied).toEqual([{ code: 'groups.view', subscription_id: m.subscriptionId }]);
  });

  it('resolves permissions for the entity of the token only', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'] });
    const dir = createDirectoryService(t.database.db);
    await dir.ensureEmployee({ userId: m.userId, entityId: otherEntityId, name: 'x' });
    const body = (await get('/api/permissions/me', await tokenFor(t.app, { userId: m.userId, entityId: otherEntityId }))).json();
    expect(body.permissions).toEqual([]);
    expect(body.role).toBeNull();
  });
});

describe('the grants version (docs/decisions.md, "Grants version")', () => {
  const subscriptionReads = (statements: string[]) => statements.filter((s) => s.includes('from subscription es')).length;
  const me = async (token: string) => {
    const recorder = recordQueries();
    try {
      const res = await get('/api/permissions/me', token);
      expect(res.statusCode).toBe(200);
      return { body: res.json(), subscriptionReads: subscriptionReads(recorder.statements) };
    } finally {
      recorder.stop();
    }
  };

  it('reads the subscriptions again only after a change to the grants', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['groups.view'] });
    const token = await tokenFor(t.app, m);
    await me(token);
    expect(await me(token)).toMatchObject({ subscriptionReads: 0, body: { permissions: ['groups.view'] } });
    await t.database.db.execute(sql`insert into role_permission (role_id, permission_code) values (${m.roleId!}, 'contacts.view')`);
    expect(await me(token)).toMatchObject({ subscriptionReads: 1, body: { permissions: ['contacts.view', 'groups.view'] } });
    expect(await me(token)).toMatchObject({ subscriptionReads: 0, body: { permissions: ['contacts.view', 'groups.view'] } });
  });

  it('applies a change written straight to the database (another instance, the CLI, a script) to the very next request', async () => {
    const m = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['groups.view', 'leads.view'] });
    const token = await tokenFor(t.app, m);
    const db = t.database.db;
    const permissionsNow = async () => (await me(token)).body.permissions as string[];
    expect(await permissionsNow()).toEqual(['groups.view', 'leads.view']);

    await db.execute(sql`delete from role_permission where role_id = ${m.roleId!} and permission_code = 'leads.view'`);
    expect(await permissionsNow()).toEqual(['groups.view']);

    await db.execute(sql`insert into subscription_override (subscription_id, permission_code, effect) values (${m.subscriptionId!}, 'groups.view', 'DENY')`);
    expect(await permissionsNow()).toEqual([]);
    await db.execute(sql`delete from subscription_override where subscription_id = ${m.subscriptionId!}`);
    expect(await permissionsNow()).toEqual(['groups.view']);

    await db.execute(sql`update role set name = 'renamed in the database' where id = ${m.roleId!}`);
    expect((await me(token)).body.role).toMatchObject({ id: m.roleId, name: 'renamed in the database' });

    const other = await createDirectoryService(db).ensureRole({ entityId, name: `other ${m.userId}`, permissions: ['contacts.view'] });
    await db.execute(sql`update subscription set role_id = ${other.id} where id = ${m.subscriptionId!}`);
    expect(await permissionsNow()).toEqual(['contacts.view']);

    await db.execute(sql`delete from subscription where id = ${m.subscriptionId!}`);
    expect((await me(token)).body).toMatchObject({ permissions: [], role: null });
  });

  it('keeps each membership its own grants: equal versions do not share subscriptions across users or entities', async () => {
    const a = await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['groups.view'] });
    const b = await makeMember(t.database.db, { conversations: 'restricted', entityId: otherEntityId, codes: ['leads.view'] });
    const [tokenA, tokenB] = [await tokenFor(t.app, a), await tokenFor(t.app, b)];
    for (let i = 0; i < 2; i++) {
      expect((await me(tokenA)).body.permissions).toEqual(['groups.view']);
      expect((await me(tokenB)).body.permissions).toEqual(['leads.view']);
    }
  });
});

describe('GET /api/permissions/schema', () => {
  it('returns labels grouped by module with a strong ETag, and 304 for a matching If-None-Match', async () => {
    const token = await tokenFor(t.app, await makeMember(t.database.db, { conversations: 'restricted', entityId }));
    const res = await get('/api/permissions/schema', token);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(`"${SCHEMA_VERSION}"`);
    const body = res.json();
    expect(body.modules.map((m: { key: string }) => m.key)).toEqual([
      'cartera',
      'registros',
      'catalogo',
      'configuracion',
      'administracion',
      'workflows',
      'conversaciones',
    ]);
    expect(body.modules.flatMap((m: { permissions: unknown[] }) => m.permissions)).toHaveLength(ALL_PERMISSION_CODES.length);

    const cached = await get('/api/permissions/schema', token, { 'if-none-match': res.headers.etag as string });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    expect((await get('/api/permissions/schema', token, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('requires a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/permissions/schema' });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/permissions', () => {
  it('lists the stored records with implications for permissions.catalog.view holders', async () => {
    const token = await tokenFor(t.app, await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['permissions.catalog.view'] }));
    const res = await get('/api/permissions', token);
    expect(res.statusCode).toBe(200);
    const leadsCreate = res.json().data.find((p: { code: string }) => p.code === 'leads.create');
    expect(leadsCreate).toEqual({ code: 'leads.create', module: 'registros', label: 'Create leads', implies: ['leads.view'] });
  });

  it('answers 403 permission_denied naming the code otherwise', async () => {
    const token = await tokenFor(t.app, await makeMember(t.database.db, { conversations: 'restricted', entityId, codes: ['leads.view'] }));
    const res = await get('/api/permissions', token);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'permission_denied', permission: 'permissions.catalog.view', detail: 'Requires permissions.catalog.view' });
  });
});
