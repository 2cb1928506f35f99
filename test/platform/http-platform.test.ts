import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/test-app.js';

let t: TestContext;

beforeAll(async () => {
  t = await createTestApp({ env: { CORS_ORIGINS: 'https://app.example.com' } });
});
afterAll(async () => t.close());

describe('platform endpoints', () => {
  it('answers liveness and readiness', async () => {
    expect((await t.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('serves the OpenAPI 3.1 document and the Swagger UI', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/auth/login', '/api/permissions/me', '/api/permissions/schema', '/api/roles']));
    expect(doc.paths['/api/auth/login'].post.requestBody.content['application/json'].schema.required).toEqual(['email', 'password', 'entity_id']);
    const ui = await t.app.inject('/docs/');
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toContain('text/html');
  });

  it('exposes Prometheus request counts and latency per route template', async () => {
    await t.app.inject('/healthz');
    const res = await t.app.inject('/metrics');
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
  });

  it('answers unknown routes with problem+json 404 route_not_found and a request id', async () => {
    const res = await t.app.inject('/nope?x=1');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ code: 'route_not_found', status: 404, type: 'https://crm-backend.dev/errors/route-not-found', detail: 'No route GET /nope' });
    expect(body.requestId).toBe(res.headers['x-request-id']);
  });

  it('keeps an incoming X-Request-Id and generates one otherwise', async () => {
    expect((await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id']).toBe('abc-123');
    expect((await t.app.inject('/healthz')).headers['x-request-id']).toMatch(/^req-/);
  });

  it('rejects malformed JSON with 400 invalid_body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"email":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_body');
  });

  it('allows configured browser origins only', async () => {
    const allowed = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/login',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const other = await t.app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'https://evil.example.com' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('never sends CORS headers on server-to-server webhook paths', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/payments/webhooks',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('reports 503 not_ready when the database is gone', async () => {
    const other = await createTestApp();
    await other.database.close();
    const res = await other.app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('not_ready');
    await other.close();
  });
});
