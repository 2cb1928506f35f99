/**
 * A client generated from the served OpenAPI document (`npm run openapi:types` →
 * test/generated/openapi.ts) talks to the real server over HTTP through openapi-fetch: the document
 * is good enough to program against, and its shapes match what the server answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { makeEntity, makeMember, type Member } from '../helpers/factories.js';

let t: TestContext;
let member: Member;
let baseUrl: string;
beforeAll(async () => {
  t = await createTestApp();
  const entity = await makeEntity(t.database.db);
  member = await makeMember(t.database.db, { entityId: entity.id, codes: ['groups.view', 'groups.create'] });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

describe('generated client (openapi-typescript + openapi-fetch)', () => {
  it('logs in, creates a group and lists it; errors arrive as the typed problem body', async () => {
    const api = createClient<paths>({ baseUrl });

    const login = await api.POST('/api/auth/login', { body: { email: member.email, password: member.password, entity_id: member.entityId } });
    expect(login.response.status).toBe(200);
    const token = login.data!.access_token;
    const auth = { headers: { authorization: `Bearer ${token}` } };

    const created = await api.POST('/groups', { ...auth, body: { name: 'North region' } });
    expect(created.response.status).toBe(201);
    expect(created.data?.name).toBe('North region');

    const list = await api.GET('/groups', { ...auth, params: { query: { search: 'North', limit: 10 } } });
    expect(list.data?.data.map((g) => g.id)).toEqual([created.data!.id]);
    expect(list.data?.pagination).toMatchObject({ limit: 10, offset: 0, total: 1 });

    const missing = await api.GET('/groups/{id}', { ...auth, params: { path: { id: 2_147_483_647 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.error?.code).toBe('not_found');

    // The /api copies are typed paths too, and binary answers are typed as such.
    const viaApi = await api.GET('/api/groups', { ...auth, params: { query: { search: 'North' } } });
    expect(viaApi.data?.data.map((g) => g.id)).toEqual([created.data!.id]);
    const noMedia = await api.GET('/api/media/public', { params: { query: { key: 'missing/none.webp' } }, parseAs: 'blob' });
    expect(noMedia.response.status).toBe(404);
    expect(noMedia.error?.code).toBeDefined();

    const denied = await api.GET('/leads', auth);
    expect(denied.response.status).toBe(403);
    expect(denied.error).toMatchObject({ code: 'permission_denied', status: 403 });
  });
});
