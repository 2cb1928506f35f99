import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('payment webhooks', () => {
  it('accepts any event with 200 without a token and without CORS headers', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/payments/webhooks',
      headers: { origin: 'https://evil.example' },
      payload: { type: 'payment.succeeded', id: 'evt_1' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers its health check', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/payments/webhooks/health' });
    expect(res.json()).toEqual({ status: 'ok' });
  });
});
