/**
 * Request logs never carry a credential sent in the query string (a JWT as `?token=`, an API key, a
 * signature) nor the Authorization header; the rest of the URL stays readable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { makeEntity, makeMember, tokenFor } from '../helpers/factories.js';

let t: TestContext;
const lines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => lines.push(line) } });
});
afterAll(async () => t?.close());

describe('request logs', () => {
  it('redact ?token= and other credential parameters, and the Authorization header', async () => {
    const entity = await makeEntity(t.database.db, 'Logs');
    const jwt = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entity.id }));
    lines.length = 0;
    await t.app.inject({ method: 'GET', url: `/api/permissions/me?token=${jwt}&view=full` });
    await t.app.inject({ method: 'GET', url: '/healthz?Access_Token=secret-one&API_KEY=secret-two&signature=secret-three' });
    await t.app.inject({ method: 'GET', url: '/api/permissions/me', headers: { authorization: `Bearer ${jwt}` } });
    const all = lines.join('');
    expect(all).not.toContain(jwt);
    expect(all).not.toContain(jwt.split('.')[2]!);
    for (const secret of ['secret-one', 'secret-two', 'secret-three']) expect(all).not.toContain(secret);
    const urls = lines.map((l) => JSON.parse(l) as { req?: { url?: string } }).flatMap((l) => (l.req?.url ? [l.req.url] : []));
    expect(urls).toContain('/api/permissions/me?token=[redacted]&view=full');
    expect(urls).toContain('/healthz?Access_Token=[redacted]&API_KEY=[redacted]&signature=[redacted]');
  });
});
