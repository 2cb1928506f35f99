/**
 * API keys (issue 53): created by people with `api_keys.manage`, never with a code their creator lacks; a key
 * passes the same permission checks as a person with its own codes, is refused where only people may go, is
 * never read from a URL, stops at once when revoked (on another instance too) or expired, and has its own
 * request budget answered 429 with RateLimit headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor, type Member } from '../../helpers/factories.js';

interface Key {
  id: number;
  secret: string;
  prefix: string;
  permissions: string[];
  status: string;
  expires_at: string | null;
  last_used_at: string | null;
}

let t: TestContext;
/** A second instance on the same database, with a budget of 3 requests per key and info logs captured. */
let other: TestContext;
const otherLog: string[] = [];
let manager: Member;
let managerToken: string;
let strangerToken: string;

const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object, app = t.app) =>
  app.inject({ method, url, headers: bearer(token), ...(payload !== undefined ? { payload } : {}) });
const newKey = async (permissions: string[], extra: object = {}) => {
  const res = await call('POST', '/api/api-keys', managerToken, { name: 'ERP sync', permissions, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Key>();
};

beforeAll(async () => {
  t = await createTestApp();
  other = await createTestApp({
    testDb: t.testDb,
    env: { API_KEY_RATE_LIMIT_MAX: '3', API_KEY_RATE_LIMIT_WINDOW_SECONDS: '600', LOG_LEVEL: 'info' },
    logStream: { write: (line) => void otherLog.push(line) },
  });
  const e1 = (await makeEntity(t.database.db, 'Keyed Company')).id;
  const e2 = (await makeEntity(t.database.db, 'Keys elsewhere')).id;
  manager = await makeMember(t.database.db, { entityId: e1, codes: ['api_keys.manage', 'contacts.create', 'leads.view'] });
  managerToken = await tokenFor(t.app, manager);
  strangerToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes: ['api_keys.manage'] }));
}, 60_000);
afterAll(async () => {
  await other?.close();
  await t?.close();
});

describe('creating API keys', () => {
  it('shows a crm_ secret of 256 random bits once and keeps only its prefix visible', async () => {
    const key = await newKey(['contacts.create']);
    expect(key.secret).toMatch(/^crm_[A-Za-z0-9_-]{43}$/);
    expect(key.prefix).toBe(key.secret.slice(0, 12));
    // Implied codes come with the code asked for; the default life is 90 days.
    expect(key.permissions).toEqual(['contacts.create', 'contacts.view']);
    expect(new Date(key.expires_at!).getTime() - Date.now()).toBeGreaterThan(89 * 86_400_000);
    const listed = (await call('GET', '/api/api-keys', managerToken)).json<{ data: Record<string, unknown>[] }>().data;
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ prefix: key.prefix, status: 'active' });
    expect(JSON.stringify(listed)).not.toContain(key.secret);
    // Stored as its SHA-256 only.
    const stored = await t.database.db.execute(sql`select secret_hash from api_key where id = ${key.id}`);
    expect(JSON.stringify(stored)).not.toContain(key.secret);
  });

  it('never gives a key a code its creator lacks, nor one that is not in the catalogue', async () => {
    const res = await call('POST', '/api/api-keys', managerToken, { name: 'too much', permissions: ['leads.edit'] });
    expect(res.json()).toMatchObject({ status: 403, code: 'api_key_exceeds_creator', permissions: ['leads.edit'] });
    // `contacts.edit` implies `contacts.view` (held) but is itself missing.
    expect((await call('POST', '/api/api-keys', managerToken, { name: 'x', permissions: ['contacts.edit'] })).json().code).toBe('api_key_exceeds_creator');
    expect((await call('POST', '/api/api-keys', managerToken, { name: 'x', permissions: ['leads.fly'] })).json()).toMatchObject({
      status: 400,
      code: 'unknown_permission',
    });
    expect((await call('POST', '/api/api-keys', managerToken, { name: 'x', permissions: [] })).json().code).toBe('validation_failed');
  });

  it('expires at most a year ahead, and never only where the entity policy allows it', async () => {
    const inTwoYears = new Date(Date.now() + 2 * 365 * 86_400_000).toISOString();
    expect((await call('POST', '/api/api-keys', managerToken, { name: 'x', permissions: ['leads.view'], expires_at: inTwoYears })).json()).toMatchObject({
      status: 400,
      code: 'invalid_api_key_expiry',
    });
    const past = new Date(Date.now() - 1000).toISOString();
    expect((await call('POST', '/api/api-keys', managerToken, { name: 'x', permissions: ['leads.view'], expires_at: past })).json().code).toBe(
      'invalid_api_key_expiry',
    );
    expect((await call('POST', '/api/api-keys', managerToken, { name: 'x', permissions: ['leads.view'], expires_at: null })).json()).toMatchObject({
      status: 422,
      code: 'api_key_expiry_required',
    });
    expect((await call('PUT', '/api/api-keys/policy', managerToken, { allow_non_expiring: true })).json()).toEqual({ allow_non_expiring: true });
    expect((await newKey(['leads.view'], { expires_at: null })).expires_at).toBeNull();
    await call('PUT', '/api/api-keys/policy', managerToken, { allow_non_expiring: false });
  });

  it("is another entity's business: its keys are not found, and it lists only its own", async () => {
    const key = await newKey(['leads.view']);
    expect((await call('GET', `/api/api-keys/${key.id}`, strangerToken)).json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await call('POST', `/api/api-keys/${key.id}/revoke`, strangerToken)).statusCode).toBe(404);
    expect((await call('GET', '/api/api-keys', strangerToken)).json<{ data: unknown[] }>().data).toEqual([]);
    expect(
      (
        await call('GET', '/api/api-keys', await tokenFor(t.app, await makeMember(t.database.db, { entityId: manager.entityId, codes: ['leads.view'] })))
      ).json(),
    ).toMatchObject({
      status: 403,
      permission: 'api_keys.manage',
    });
  });
});

describe('a key at work', () => {
  it('passes the permission checks with its own codes: no leads.view, no leads', async () => {
    const contactsOnly = await newKey(['contacts.create']);
    expect((await call('GET', '/api/contacts', contactsOnly.secret)).statusCode).toBe(200);
    expect((await call('GET', '/api/leads', contactsOnly.secret)).json()).toMatchObject({ status: 403, code: 'permission_denied', permission: 'leads.view' });
    expect((await call('GET', '/leads', contactsOnly.secret)).statusCode).toBe(403);
    const leadsKey = await newKey(['leads.view']);
    expect((await call('GET', '/api/leads', leadsKey.secret)).statusCode).toBe(200);
    const wrong = `crm_${'A'.repeat(43)}`;
    expect((await call('GET', '/api/contacts', wrong)).json()).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('is refused where only people may go: keys, login, changing entity; and may not create keys of its own', async () => {
    const manageKey = await newKey(['api_keys.manage', 'leads.view']);
    expect((await call('POST', '/api/api-keys', manageKey.secret, { name: 'child', permissions: ['leads.view'] })).json()).toMatchObject({
      status: 403,
      code: 'api_key_not_allowed',
    });
    expect((await call('GET', '/api/api-keys', manageKey.secret)).json().code).toBe('api_key_not_allowed');
    expect((await call('POST', '/api/auth/change-entity', manageKey.secret, { entity_id: manager.entityId })).json().code).toBe('api_key_not_allowed');
    const loginWithKey = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: bearer(manageKey.secret),
      payload: { email: manager.email, password: manager.password, entity_id: manager.entityId },
    });
    expect(loginWithKey.json()).toMatchObject({ status: 403, code: 'api_key_not_allowed' });
  });

  it('is never read from the query string', async () => {
    const key = await newKey(['leads.view']);
    for (const name of ['api_key', 'access_token', 'token'])
      expect((await t.app.inject({ method: 'GET', url: `/api/leads?${name}=${key.secret}` })).json()).toMatchObject({ status: 400, code: 'api_key_in_query' });
  });

  it('holds no more than its creator holds now', async () => {
    const creator = await makeMember(t.database.db, { entityId: manager.entityId, codes: ['api_keys.manage', 'leads.view'] });
    const res = await call('POST', '/api/api-keys', await tokenFor(t.app, creator), { name: 'mine', permissions: ['leads.view'] });
    const key = res.json<Key>();
    expect((await call('GET', '/api/leads', key.secret)).statusCode).toBe(200);
    await t.database.db.execute(sql`update employee set is_active = false where id = ${creator.employeeId}`);
    expect((await call('GET', '/api/leads', key.secret)).json()).toMatchObject({ status: 401, code: 'membership_revoked' });
  });

  it('records when it was last used', async () => {
    const key = await newKey(['leads.view']);
    expect(key.last_used_at).toBeNull();
    await call('GET', '/api/leads', key.secret);
    await expect.poll(async () => (await call('GET', `/api/api-keys/${key.id}`, managerToken)).json<Key>().last_used_at).not.toBeNull();
  });
});

describe('revocation, expiry and the request budget', () => {
  it('revokes on every instance at once: the next request to another instance is refused', async () => {
    const key = await newKey(['leads.view']);
    expect((await call('GET', '/api/leads', key.secret, undefined, other.app)).statusCode).toBe(200);
    expect((await call('POST', `/api/api-keys/${key.id}/revoke`, managerToken)).json()).toMatchObject({ status: 'revoked' });
    expect((await call('GET', '/api/leads', key.secret, undefined, other.app)).json()).toMatchObject({ status: 401, code: 'api_key_revoked' });
    expect((await call('GET', '/api/leads', key.secret)).json().code).toBe('api_key_revoked');
  });

  it('stops at its expiry', async () => {
    const key = await newKey(['leads.view']);
    expect((await call('GET', '/api/leads', key.secret)).statusCode).toBe(200);
    await t.database.db.execute(sql`update api_key set expires_at = now() - interval '1 second' where id = ${key.id}`);
    expect((await call('GET', '/api/leads', key.secret)).json()).toMatchObject({ status: 401, code: 'api_key_expired' });
    expect((await call('GET', `/api/api-keys/${key.id}`, managerToken)).json()).toMatchObject({ status: 'expired' });
  });

  it('has its own budget, answered 429 with RateLimit and Retry-After, naming the key in the logs', async () => {
    const key = await newKey(['leads.view']);
    const spare = await newKey(['leads.view']);
    for (let i = 0; i < 3; i++) {
      const res = await call('GET', '/api/leads', key.secret, undefined, other.app);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit']).toMatch(new RegExp(`^"api-key";r=${2 - i};t=\\d+$`));
      expect(res.headers['ratelimit-policy']).toBe('"api-key";q=3;w=600');
    }
    const over = await call('GET', '/api/leads', key.secret, undefined, other.app);
    expect(over.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.headers['ratelimit']).toMatch(/^"api-key";r=0;t=\d+$/);
    // Another key, and people, keep their own budgets.
    expect((await call('GET', '/api/leads', spare.secret, undefined, other.app)).statusCode).toBe(200);
    expect((await call('GET', '/api/leads', managerToken, undefined, other.app)).statusCode).toBe(200);
    await expect.poll(() => otherLog.some((l) => l.includes(`"actor":"api_key:${key.id}"`)), { message: otherLog.slice(-3).join('') }).toBe(true);
    expect(otherLog.some((l) => l.includes(key.secret))).toBe(false);
  });
});
