import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { createTestApp, TEST_JWT_SECRET, type TestContext } from '../../helpers/test-app.js';
import { addMembership, bearer, login, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';
import { createDirectoryService } from '../../../src/modules/identity/directory.service.js';
import type { CrmTokenClaims } from '../../../src/platform/auth/jwt.js';

let t: TestContext;
let entityA: { id: number };
let entityB: { id: number };
let member: Member;

beforeAll(async () => {
  t = await createTestApp({ env: { LOGIN_RATE_LIMIT_MAX: '5' } });
  entityA = await makeEntity(t.database.db, 'Alpha');
  entityB = await makeEntity(t.database.db, 'Beta');
  member = await makeMember(t.database.db, { entityId: entityA.id, codes: ['leads.view'] });
});
afterAll(async () => t.close());

describe('POST /api/auth/login', () => {
  it('returns a Bearer token whose payload has exactly the SPEC fields and no permissions', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: member.email, password: member.password, entity_id: entityA.id },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 28800, user: { id: member.userId, entity_id: entityA.id } });
    expect(body.erp_session).toMatchObject({ status: 'missing', entity_id: entityA.id, client_kind: 'web' });
    const claims = decodeJwt(body.access_token);
    const specFields = [
      'id',
      'email',
      'erp_user_id',
      'role_id',
      'role_name',
      'entity_id',
      'employee_role_id',
      'user_role_id',
      'role_source',
      'employee_id',
      'erp_employee_id',
      'client_kind',
    ];
    expect(
      Object.keys(claims)
        .filter((k) => !['iat', 'exp', 'sub'].includes(k))
        .sort(),
    ).toEqual([...specFields].sort());
    expect(claims.exp! - claims.iat!).toBe(8 * 3600);
    expect(claims).toMatchObject({ id: member.userId, entity_id: entityA.id, employee_id: member.employeeId, role_source: 'employee', client_kind: 'web' });
  });

  it('answers the same 401 invalid_credentials for an unknown e-mail and a wrong password', async () => {
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'nobody@example.com', password: 'x', entity_id: entityA.id },
    });
    const wrong = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: member.email, password: 'wrong', entity_id: entityA.id } });
    for (const res of [unknown, wrong]) {
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ code: 'invalid_credentials', status: 401 });
    }
    expect(unknown.json().detail).toBe(wrong.json().detail);
  });

  it('refuses an entity the user is not a member of with 403 entity_not_allowed', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: member.email, password: member.password, entity_id: entityB.id },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'entity_not_allowed' });
  });

  it('answers 400 validation_failed naming each bad field', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: member.email, entity_id: 'x' } });
    expect(res.statusCode).toBe(400);
    const fields = (res.json().errors as { field: string }[]).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['/body/password', '/body/entity_id']));
  });

  it('rate-limits attempts per (e-mail, address) with 429 and Retry-After', async () => {
    const victim = await makeMember(t.database.db, { entityId: entityA.id });
    const responses = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '10.0.0.1',
        payload: { email: victim.email, password: 'guess', entity_id: entityA.id },
      });
      responses.push(res);
    }
    const statuses = responses.map((r) => r.statusCode);
    const last = responses[6]!;
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    expect(last.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('never locks an account for everyone: a stranger hammering it leaves the owner a fresh address', async () => {
    const victim = await makeMember(t.database.db, { entityId: entityA.id });
    const attempt = (remoteAddress: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { email: victim.email, password, entity_id: entityA.id } });
    // Wrong passwords from many addresses (each within its own budget) and past the budget from one.
    for (let i = 0; i < 8; i++) expect((await attempt(`198.51.100.${i + 1}`, 'guess')).statusCode).toBe(401);
    const hammer: number[] = [];
    for (let i = 0; i < 7; i++) hammer.push((await attempt('203.0.113.66', 'guess')).statusCode);
    expect(hammer.slice(5)).toEqual([429, 429]);
    // The stranger's address stays refused, even with the right password; the owner's does not.
    expect((await attempt('203.0.113.66', victim.password)).statusCode).toBe(429);
    expect((await attempt('192.0.2.200', victim.password)).statusCode).toBe(200);
  });

  it('a success clears the failures of its (e-mail, address)', async () => {
    const owner = await makeMember(t.database.db, { entityId: entityA.id });
    const attempt = (password: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '192.0.2.150', payload: { email: owner.email, password, entity_id: entityA.id } });
    for (let i = 0; i < 3; i++) expect((await attempt('typo')).statusCode).toBe(401);
    expect((await attempt(owner.password)).statusCode).toBe(200);
    // Four more mistakes would have crossed the budget of five without the reset.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt('typo')).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401]);
  });

  it('rate-limits attempts per IP across e-mails', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '192.0.2.77',
        payload: { email: `someone-${i}@example.com`, password: 'x', entity_id: entityA.id },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe('token verification', () => {
  const me = (token: string) => t.app.inject({ method: 'GET', url: '/api/permissions/me', headers: bearer(token) });

  it('accepts a valid token', async () => {
    expect((await me(await tokenFor(t.app, member))).statusCode).toBe(200);
  });

  it('refuses a request without a token with 401 unauthenticated', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/permissions/me' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthenticated');
  });

  it('refuses an expired token with 401 token_expired', async () => {
    const claims = decodeJwt(await tokenFor(t.app, member));
    const expired = await new SignJWT({ ...claims, iat: 1000, exp: 2000 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const res = await me(expired);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('token_expired');
  });

  it('refuses a tampered payload', async () => {
    const [h, p, s] = (await tokenFor(t.app, member)).split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload.entity_id = entityB.id;
    const res = await me(`${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
  });

  it('refuses an unsigned alg:none token', async () => {
    const claims = decodeJwt(await tokenFor(t.app, member));
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const res = await me(`${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
  });

  it('refuses a token signed with another algorithm and the same secret', async () => {
    const claims = decodeJwt(await tokenFor(t.app, member));
    const hs512 = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS512' }).sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const res = await me(hs512);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
  });

  it('refuses the token of a user removed from the entity since it was issued', async () => {
    const leaver = await makeMember(t.database.db, { entityId: entityA.id, codes: ['leads.view'] });
    const token = await tokenFor(t.app, leaver);
    expect((await me(token)).statusCode).toBe(200);
    await t.database.executeSql('update employee set is_active = false where id = $1', [leaver.employeeId]);
    const res = await me(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('membership_revoked');
  });

  it('accepts the same token again once the membership is restored', async () => {
    const returning = await makeMember(t.database.db, { entityId: entityA.id, codes: ['leads.view'] });
    const token = await tokenFor(t.app, returning);
    expect((await me(token)).statusCode).toBe(200);
    await t.database.executeSql('update employee set is_active = false where id = $1', [returning.employeeId]);
    expect((await me(token)).json().code).toBe('membership_revoked');
    await t.database.executeSql('update employee set is_active = true where id = $1', [returning.employeeId]);
    expect((await me(token)).statusCode).toBe(200);
  });

  it('sees a change to the user or the membership at the very next request with the same token', async () => {
    const moving = await makeMember(t.database.db, { entityId: entityA.id });
    await addMembership(t.database.db, moving.userId, entityB.id);
    const token = await tokenFor(t.app, moving);
    const switched = async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/change-entity', headers: bearer(token), payload: { entity_id: entityB.id } });
      expect(res.statusCode).toBe(200);
      return decodeJwt(res.json().access_token);
    };
    expect(await switched()).toMatchObject({ email: moving.email, erp_user_id: null, erp_employee_id: null });

    await t.database.executeSql('update app_user set email = $2, erp_user_id = 9101 where id = $1', [moving.userId, `moved-${moving.userId}@example.com`]);
    expect(await switched()).toMatchObject({ email: `moved-${moving.userId}@example.com`, erp_user_id: 9101, erp_employee_id: null });
    await t.database.executeSql('update employee set erp_employee_id = 9102 where user_id = $1 and entity_id = $2', [moving.userId, entityB.id]);
    expect(await switched()).toMatchObject({ email: `moved-${moving.userId}@example.com`, erp_user_id: 9101, erp_employee_id: 9102 });
  });

  it('keeps each token its own client kind when one user holds several', async () => {
    const both = await makeMember(t.database.db, { entityId: entityA.id });
    await addMembership(t.database.db, both.userId, entityB.id);
    const web = await tokenFor(t.app, both);
    const mobile = (await t.app.ctx.tokens.sign({ ...(decodeJwt(web) as unknown as CrmTokenClaims), client_kind: 'mobile' })).token;
    const kindAfterSwitch = async (token: string) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/change-entity', headers: bearer(token), payload: { entity_id: entityB.id } });
      expect(res.statusCode).toBe(200);
      return decodeJwt(res.json().access_token).client_kind;
    };
    for (let i = 0; i < 2; i++) {
      expect(await kindAfterSwitch(web)).toBe('web');
      expect(await kindAfterSwitch(mobile)).toBe('mobile');
    }
  });
});

describe('entity switch', () => {
  it('lists the user entities with their names and marks the active one', async () => {
    const multi = await makeMember(t.database.db, { entityId: entityA.id, codes: ['leads.view'] });
    await addMembership(t.database.db, multi.userId, entityB.id);
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/my-entities', headers: bearer(await tokenFor(t.app, multi)) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      expect.objectContaining({ id: entityA.id, name: 'Alpha', active: true }),
      expect.objectContaining({ id: entityB.id, name: 'Beta', active: false }),
    ]);
  });

  it('issues a token for another entity of the user, and refuses one they do not belong to', async () => {
    const multi = await makeMember(t.database.db, { entityId: entityA.id });
    const token = await tokenFor(t.app, multi);
    const denied = await t.app.inject({ method: 'POST', url: '/api/auth/change-entity', headers: bearer(token), payload: { entity_id: entityB.id } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('entity_not_allowed');

    await createDirectoryService(t.database.db).ensureEmployee({ userId: multi.userId, entityId: entityB.id, name: 'x' });
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/change-entity', headers: bearer(token), payload: { entity_id: entityB.id } });
    expect(res.statusCode).toBe(200);
    expect(decodeJwt(res.json().access_token).entity_id).toBe(entityB.id);
    const entities = await t.app.inject({ method: 'GET', url: '/api/auth/my-entities', headers: bearer(res.json().access_token) });
    expect(entities.json().data.find((e: { active: boolean }) => e.active).id).toBe(entityB.id);
  });

  it('logs in with the real password flow', async () => {
    expect(await login(t.app, member)).toMatch(/^ey/);
  });
});

describe('behind a proxy (TRUST_PROXY)', () => {
  it('counts the address the trusted proxy saw, not the client-written left-most X-Forwarded-For', async () => {
    const behind = await createTestApp({ env: { LOGIN_RATE_LIMIT_MAX: '5', TRUST_PROXY: '1' }, testDb: t.testDb });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await behind.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          remoteAddress: '10.1.0.2',
          // The attacker rotates the left-most entry; the proxy appends the address it saw.
          headers: { 'x-forwarded-for': `203.0.113.${i + 1}, 198.51.100.99` },
          payload: { email: `rotating-${i}@example.com`, password: 'x', entity_id: entityA.id },
        });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      // Another client behind the same proxy has its own budget.
      const other = await behind.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '10.1.0.2',
        headers: { 'x-forwarded-for': '203.0.113.1, 198.51.100.100' },
        payload: { email: 'rotating-0@example.com', password: 'x', entity_id: entityA.id },
      });
      expect(other.statusCode).toBe(401);
    } finally {
      await behind.close();
    }
  });

  it('with the proxies listed by CIDR, the right-most untrusted hop is the client', async () => {
    const behind = await createTestApp({ env: { LOGIN_RATE_LIMIT_MAX: '2', TRUST_PROXY: '10.1.0.0/16' }, testDb: t.testDb });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await behind.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          remoteAddress: '10.1.0.2',
          headers: { 'x-forwarded-for': `203.0.113.${i + 1}, 198.51.100.98` },
          payload: { email: `listed-${i}@example.com`, password: 'x', entity_id: entityA.id },
        });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 429]);
      const other = await behind.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '10.1.0.2',
        headers: { 'x-forwarded-for': '198.51.100.97' },
        payload: { email: 'listed-0@example.com', password: 'x', entity_id: entityA.id },
      });
      expect(other.statusCode).toBe(401);
      // Not from a listed proxy: its X-Forwarded-For is ignored, the peer address counts.
      const direct = await behind.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: '192.0.2.31',
        headers: { 'x-forwarded-for': '198.51.100.98' },
        payload: { email: 'listed-9@example.com', password: 'x', entity_id: entityA.id },
      });
      expect(direct.statusCode).toBe(401);
    } finally {
      await behind.close();
    }
  });
});
