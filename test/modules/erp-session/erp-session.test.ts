import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, addMembership, type Member } from '../../helpers/factories.js';
import { erpEnv, erpUserFor, linkEntity, loginWithErp, startTestErp } from '../../helpers/erp.js';
import type { ErpSimulator } from '../../../sim/erp/server.js';
import { crmGroup } from '../../../src/modules/records/group.table.js';
import { lead } from '../../../src/modules/records/lead.table.js';
import { queryRows } from '../../../src/db/client.js';

let sim: ErpSimulator;
let t: TestContext;
let entityA: { id: number };
let entityB: { id: number };
let groupA: number;
const seen: string[] = [];

/** Every response body is kept to assert at the end that no GraphQL JWT ever left the service. */
function record(res: LightMyRequestResponse): LightMyRequestResponse {
  seen.push(res.body);
  return res;
}
const get = async (url: string, token: string) => record(await t.app.inject({ method: 'GET', url, headers: bearer(token) }));
const sync = async (token: string, payload?: object) =>
  record(await t.app.inject({ method: 'POST', url: '/api/auth/erp-session/sync', headers: bearer(token), ...(payload ? { payload } : {}) }));
const login = async (m: Member, entityId = m.entityId, erpAccessToken?: string) => {
  const r = await loginWithErp(t.app, { email: m.email, password: m.password, entityId, ...(erpAccessToken ? { erpAccessToken } : {}) });
  seen.push(JSON.stringify(r.body));
  return r;
};
const invoices = (token: string) => get(`/groups/${groupA}/invoices`, token);

async function member(erpEntities: number[] = [501]): Promise<Member> {
  const m = await makeMember(t.database.db, { entityId: entityA.id, codes: ['groups.view'] });
  erpUserFor(sim, m, erpEntities);
  return m;
}

beforeAll(async () => {
  sim = await startTestErp();
  t = await createTestApp({ env: erpEnv(sim) });
  entityA = await makeEntity(t.database.db, 'Alpha');
  entityB = await makeEntity(t.database.db, 'Beta');
  await linkEntity(t.database.db, sim, entityA.id, 501, 'Alpha ERP');
  await linkEntity(t.database.db, sim, entityB.id, 502, 'Beta ERP');
  const [g] = await t.database.db.insert(crmGroup).values({ entityId: entityA.id, name: 'Group A' }).returning();
  groupA = g!.id;
  // A client in the group, so ERP-backed invoice calls reach the ERP's GraphQL API.
  await t.database.db.insert(lead).values({ entityId: entityA.id, groupId: groupA, name: 'Client', erpId: 'C-T1' });
});
afterEach(() => {
  vi.useRealTimers();
  sim.controls.reset();
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

describe('login reconciles the ERP session', () => {
  it('stores a ready session when the ERP confirms the user by e-mail and password', async () => {
    const m = await member();
    const r = await login(m);
    expect(r.status).toBe(200);
    expect(r.erpSession).toMatchObject({
      status: 'ready',
      entity_id: entityA.id,
      client_kind: 'web',
      selected_entity_id: 501,
      selected_entity_name: 'Alpha ERP',
    });
    expect(Date.parse(r.erpSession.graphql_jwt_expires_at as string)).toBeGreaterThan(Date.now());
    expect(Date.parse(r.erpSession.refresh_after as string)).toBeLessThan(Date.parse(r.erpSession.graphql_jwt_expires_at as string));
    const snap = await get('/api/auth/erp-session', r.token);
    expect(snap.statusCode).toBe(200);
    expect(snap.json()).toEqual(r.erpSession);
  });

  it('uses the OAuth access token through userinfo when the web sends one', async () => {
    const m = await member();
    sim.data.users.find((u) => u.email === m.email)!.password = 'a-different-erp-password';
    const r = await login(m, m.entityId, sim.controls.issueOauthToken(m.email));
    expect(r.erpSession.status).toBe('ready');
    expect(sim.controls.counts.userinfo).toBeGreaterThan(0);
  });

  it("ignores an OAuth token that belongs to another user's e-mail", async () => {
    const m = await member();
    const other = await member();
    const r = await login(m, m.entityId, sim.controls.issueOauthToken(other.email));
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('missing');
  });

  it('logs in with a missing ERP session when the ERP answers 5xx', async () => {
    const m = await member();
    sim.controls.failStatus = 503;
    const r = await login(m);
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('missing');
    expect((await get('/api/permissions/me', r.token)).statusCode).toBe(200);
  });

  it('logs in when the ERP does not answer before the timeout', async () => {
    const m = await member();
    sim.controls.hang = true;
    const r = await login(m);
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('missing');
  });

  it('keeps the stored session status when the ERP is down at the next login', async () => {
    const m = await member();
    expect((await login(m)).erpSession.status).toBe('ready');
    sim.controls.failStatus = 500;
    const r = await login(m);
    expect(r.status).toBe(200);
    expect(r.erpSession.status).toBe('ready');
  });
});

describe('snapshot states and transitions', () => {
  it('becomes expiring_soon after refresh_after, and an ERP-backed call refreshes the JWT once for concurrent requests', async () => {
    const m = await member();
    const r = await login(m);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(r.erpSession.refresh_after as string) + 1000);
    expect((await get('/api/auth/erp-session', r.token)).json().status).toBe('expiring_soon');
    const before = sim.controls.counts.graphql_tokens ?? 0;
    const responses = await Promise.all(Array.from({ length: 6 }, () => invoices(r.token)));
    expect(responses.map((x) => x.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((sim.controls.counts.graphql_tokens ?? 0) - before).toBe(1);
    const after = (await get('/api/auth/erp-session', r.token)).json();
    expect(after.status).toBe('ready');
    expect(Date.parse(after.graphql_jwt_expires_at)).toBeGreaterThan(Date.parse(r.erpSession.graphql_jwt_expires_at as string));
  });

  it('becomes expired after the JWT expiry; ERP-backed calls answer 428 until a sync makes it ready', async () => {
    const m = await member();
    const r = await login(m);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(r.erpSession.graphql_jwt_expires_at as string) + 1000);
    expect((await get('/api/auth/erp-session', r.token)).json().status).toBe('expired');
    const denied = await invoices(r.token);
    expect(denied.statusCode).toBe(428);
    expect(denied.json()).toMatchObject({
      code: 'erp_session_required',
      erp_session: { status: 'expired' },
      reconcile: { sync: 'POST /api/auth/erp-session/sync' },
    });
    const synced = await sync(r.token);
    expect(synced.statusCode).toBe(200);
    expect(synced.json().status).toBe('ready');
    expect((await invoices(r.token)).statusCode).toBe(200);
  });

  it('is expired at once when the ERP issues an already expired GraphQL JWT', async () => {
    const m = await member();
    sim.controls.graphqlJwtLifetimeSeconds = -5;
    const r = await login(m);
    expect(r.erpSession.status).toBe('expired');
    expect((await invoices(r.token)).json().code).toBe('erp_session_required');
  });

  it('is entity_mismatch when the ERP selected another entity; ERP-backed calls answer 409 until realigned', async () => {
    const m = await member([501, 502]);
    sim.controls.selectedEntityOverride = 502;
    const r = await login(m);
    expect(r.erpSession).toMatchObject({ status: 'entity_mismatch', selected_entity_id: 502 });
    const denied = await invoices(r.token);
    expect(denied.statusCode).toBe(409);
    expect(denied.json()).toMatchObject({ code: 'erp_entity_mismatch', erp_session: { status: 'entity_mismatch', selected_entity_id: 502 } });
    sim.controls.selectedEntityOverride = null;
    expect((await sync(r.token)).json().status).toBe('ready');
    expect((await invoices(r.token)).statusCode).toBe(200);
  });

  it('answers 401 erp_session_invalid when the ERP rejects the JWT, keeps the CRM token valid, and a sync recovers', async () => {
    const m = await member();
    const r = await login(m);
    sim.controls.rejectGraphqlJwt = true;
    const denied = await invoices(r.token);
    expect(denied.statusCode).toBe(401);
    expect(denied.json()).toMatchObject({ code: 'erp_session_invalid', erp_session: { status: 'expired' } });
    expect((await get('/api/permissions/me', r.token)).statusCode).toBe(200);
    sim.controls.rejectGraphqlJwt = false;
    expect((await sync(r.token)).json().status).toBe('ready');
  });

  it('answers 401 erp_session_invalid when a due refresh is refused because the API key was revoked', async () => {
    const m = await member();
    const r = await login(m);
    sim.data.users.find((u) => u.email === m.email)!.apiKey = 'revoked-key-0000';
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(r.erpSession.refresh_after as string) + 1000);
    const denied = await invoices(r.token);
    expect(denied.statusCode).toBe(401);
    expect(denied.json()).toMatchObject({ code: 'erp_session_invalid', erp_session: { status: 'missing' } });
  });

  it('answers 428 erp_session_required when no session exists, and a sync with stored credentials cannot create one', async () => {
    const m = await member();
    sim.controls.failStatus = 503;
    const r = await login(m);
    sim.controls.failStatus = null;
    const denied = await invoices(r.token);
    expect(denied.statusCode).toBe(428);
    expect(denied.json()).toMatchObject({ code: 'erp_session_required', erp_session: { status: 'missing' } });
    expect((await sync(r.token)).json().status).toBe('missing');
    expect((await sync(r.token, { erp_access_token: sim.controls.issueOauthToken(m.email) })).json().status).toBe('ready');
  });

  it('keeps the stored state when a sync finds the ERP down', async () => {
    const m = await member();
    const r = await login(m);
    sim.controls.failStatus = 502;
    const res = await sync(r.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ready', synced_at: r.erpSession.synced_at });
  });

  it('clears the session on DELETE while the CRM token stays valid', async () => {
    const m = await member();
    const r = await login(m);
    const del = await t.app.inject({ method: 'DELETE', url: '/api/auth/erp-session', headers: bearer(r.token) });
    expect(del.statusCode).toBe(200);
    expect(del.json().status).toBe('missing');
    expect((await get('/api/auth/erp-session', r.token)).json().status).toBe('missing');
    expect((await get('/api/permissions/me', r.token)).statusCode).toBe(200);
    expect((await invoices(r.token)).statusCode).toBe(428);
  });

  it('reconciles the new entity on change-entity, reusing the credentials of the entity left', async () => {
    const m = await member([501, 502]);
    await addMembership(t.database.db, m.userId, entityB.id);
    const r = await login(m);
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/change-entity', headers: bearer(r.token), payload: { entity_id: entityB.id } });
    seen.push(res.body);
    expect(res.statusCode).toBe(200);
    expect(res.json().erp_session).toMatchObject({ status: 'entity_mismatch', entity_id: entityB.id, selected_entity_id: 501 });
  });

  it('refuses the erp-session routes without a CRM token and validates the sync body', async () => {
    for (const [method, url] of [
      ['GET', '/api/auth/erp-session'],
      ['POST', '/api/auth/erp-session/sync'],
      ['DELETE', '/api/auth/erp-session'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthenticated');
    }
    const m = await member();
    const r = await login(m);
    const bad = await sync(r.token, { erp_access_token: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
  });
});

describe('encrypted storage', () => {
  const sealedOf = async (userId: number, entityId: number) =>
    (await queryRows<{ sealed: string }>(t.database.db, sql`select sealed from erp_session where user_id = ${userId} and entity_id = ${entityId}`))[0]?.sealed;

  it('stores no API key, JWT or profile in clear', async () => {
    const m = await member();
    await login(m);
    const sealed = (await sealedOf(m.userId, entityA.id))!;
    const apiKey = sim.data.users.find((u) => u.email === m.email)!.apiKey;
    expect(sealed).not.toContain(apiKey);
    expect(sealed).not.toContain(sim.controls.issuedJwts.at(-1)!.split('.')[1]);
    expect(sealed).not.toContain(m.email);
  });

  it('rejects an altered record as missing', async () => {
    const m = await member();
    const r = await login(m);
    const sealed = (await sealedOf(m.userId, entityA.id))!;
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[2]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    parts[2] = ct.toString('base64url');
    await t.database.db.execute(sql`update erp_session set sealed = ${parts.join('.')} where user_id = ${m.userId}`);
    expect((await get('/api/auth/erp-session', r.token)).json().status).toBe('missing');
    expect((await invoices(r.token)).json().code).toBe('erp_session_required');
  });

  it('rejects a record moved to another scope', async () => {
    const m = await member([501, 502]);
    await addMembership(t.database.db, m.userId, entityB.id);
    await login(m);
    const tokenB = (await login(m, entityB.id)).token;
    await t.database.db.execute(sql`delete from erp_session where user_id = ${m.userId} and entity_id = ${entityB.id}`);
    await t.database.db.execute(sql`update erp_session set entity_id = ${entityB.id} where user_id = ${m.userId} and entity_id = ${entityA.id}`);
    expect((await get('/api/auth/erp-session', tokenB)).json().status).toBe('missing');
  });

  it('never returns a GraphQL JWT in any response of this file', () => {
    expect(sim.controls.issuedJwts.length).toBeGreaterThan(5);
    for (const jwt of sim.controls.issuedJwts) {
      for (const body of seen) expect(body.includes(jwt)).toBe(false);
    }
  });
});
