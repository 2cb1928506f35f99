/**
 * The guarded outbound client behind the communications service calls (operations, sends, the media
 * proxy): an entity's base URL naming a private or loopback address is refused when set and when called,
 * IPv4 carried in IPv6 included; a redirect is never followed, so the X-Api-Key never reaches another
 * origin; the refusal names no resolved address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';

const OPERATOR = 'guard-ops@example.com';

/** A local HTTP server recording every request it gets; `answer` decides the response. */
async function recorder(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const hits: { url: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ url: req.url ?? '', headers: req.headers });
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { hits, port, url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function operatorApp(env: Record<string, string>) {
  const t = await createTestApp({ env: { COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: OPERATOR, ...env } });
  const entityId = (await makeEntity(t.database.db, 'Guarded')).id;
  const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId, email: OPERATOR, codes: ['communications.command_palette.view'] }));
  const call = (method: 'PUT' | 'POST', path: string, payload?: object) =>
    t.app.inject({ method, url: `/api/interactions/communications/${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
  return { t, call };
}

describe('with no local address allowed (production-like)', () => {
  let app: Awaited<ReturnType<typeof operatorApp>>;
  let target: Awaited<ReturnType<typeof recorder>>;
  beforeAll(async () => {
    target = await recorder((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"communications_entity_id":"x"}'));
    // The environment's base URL is not checked when read: the call itself is refused.
    app = await operatorApp({
      COMMUNICATIONS_ALLOWED_ADDRESSES: '198.51.100.1',
      COMMUNICATIONS_BASE_URL: target.url,
      COMMUNICATIONS_API_KEY: 'env-key-123456',
    });
  });
  afterAll(async () => {
    await app?.t.close();
    await target?.close();
  });

  it.each([
    ['loopback', 'http://127.0.0.1:8080'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:8080'],
    ['IPv4-compatible loopback', 'http://[::7f00:1]:8080'],
    ['IPv6 loopback', 'http://[::1]:8080'],
    ['private', 'http://10.20.30.40'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
    ['a local name', 'http://localhost:8080'],
    ['credentials', 'https://user:pass@comms.example.com'],
  ])('refuses a %s base URL when it is set, with 422 base_url_not_allowed', async (_name, baseUrl) => {
    const res = await app.call('PUT', 'config', { base_url: baseUrl });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'base_url_not_allowed' });
  });

  it('accepts a public base URL', async () => {
    const res = await app.call('PUT', 'config', { base_url: 'https://comms.example.com' });
    expect(res.statusCode).toBe(200);
    await app.call('PUT', 'config', { base_url: null });
  });

  it('refuses the call to a loopback base URL: nothing reaches it, and no address is told', async () => {
    const res = await app.call('POST', 'manual-login');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'communications_unavailable', kind: 'permanent' });
    expect(res.json().detail).toMatch(/private, loopback or reserved/);
    expect(target.hits).toHaveLength(0);
  });
});

describe('with the simulator address allowed (tests, demo)', () => {
  let app: Awaited<ReturnType<typeof operatorApp>>;
  let elsewhere: Awaited<ReturnType<typeof recorder>>;
  let redirecting: Awaited<ReturnType<typeof recorder>>;
  beforeAll(async () => {
    elsewhere = await recorder((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"communications_entity_id":"stolen"}'));
    redirecting = await recorder((req, res) => res.writeHead(302, { location: `http://localhost:${elsewhere.port}${req.url}` }).end());
    app = await operatorApp({});
  });
  afterAll(async () => {
    await app?.t.close();
    await elsewhere?.close();
    await redirecting?.close();
  });

  it('never follows a redirect, so the API key never reaches another origin', async () => {
    expect((await app.call('PUT', 'config', { base_url: redirecting.url, api_key: 'entity-secret-key-42' })).statusCode).toBe(200);
    const res = await app.call('POST', 'manual-login');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'communications_unavailable' });
    expect(redirecting.hits).toHaveLength(1);
    expect(redirecting.hits[0]!.headers['x-api-key']).toBe('entity-secret-key-42');
    expect(elsewhere.hits).toHaveLength(0);
  });

  it('reaches the allowed loopback address', async () => {
    expect((await app.call('PUT', 'config', { base_url: elsewhere.url, api_key: 'entity-secret-key-42' })).statusCode).toBe(200);
    const res = await app.call('POST', 'manual-login');
    expect(res.statusCode).toBe(200);
    expect(elsewhere.hits.at(-1)!.headers['x-api-key']).toBe('entity-secret-key-42');
  });
});
