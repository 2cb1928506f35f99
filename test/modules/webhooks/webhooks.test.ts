/**
 * Outbound webhooks (issue 53): endpoints refuse http and private addresses and unknown event types; a lead
 * created (here by an API key) reaches a real HTTPS receiver signed per Standard Webhooks (verified with the
 * reference `standardwebhooks` package), retried with the same webhook-id until the receiver recovers; the
 * delivery log lists attempts and replays; rotation signs with both secrets; 410 and 5 days of failures disable
 * the endpoint and say so; a hanging receiver, a 5 MB answer and a redirect cost a bounded attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeGroup } from '../../helpers/records-factories.js';
import { captureEvents } from '../../helpers/interactions.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

interface Delivery {
  id: string;
  status: string;
  attempts: { status: number | null; latency_ms: number; response_excerpt: string | null; error: string | null }[];
  payload: { type: string; version: number; data: Record<string, unknown> };
}

let t: TestContext;
let receiver: WebhookReceiver;

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload !== undefined ? { payload } : {}) });

/** An entity with a webhook manager, a group to create leads in, and an endpoint at `path` for lead.created. */
async function entityWithEndpoint(path: string) {
  const entityId = (await makeEntity(t.database.db)).id;
  const token = await tokenFor(t.app, await makeMember(t.database.db, { entityId, codes: ['webhooks.manage', 'leads.create', 'api_keys.manage'] }));
  const groupId = (await makeGroup(t.database.db, entityId)).id;
  const res = await call('POST', '/api/webhooks/endpoints', token, { url: `${receiver.url}${path}`, event_types: ['lead.created'] });
  expect(res.statusCode, res.body).toBe(201);
  const endpoint = res.json<{ id: number; secret: string }>();
  const createLead = async (as = token) => {
    const lead = await call('POST', '/api/leads', as, { group_id: groupId, name: `Lead ${Math.random()}` });
    expect(lead.statusCode, lead.body).toBe(201);
    return lead.json<{ id: number }>().id;
  };
  const deliveries = async () => (await call('GET', `/api/webhooks/endpoints/${endpoint.id}/deliveries`, token)).json<{ data: Delivery[] }>().data;
  return { entityId, token, endpoint, createLead, deliveries };
}
const callsTo = (path: string) => receiver.calls.filter((c) => c.path === path);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({
    startQueue: true,
    env: {
      OUTBOUND_WEBHOOKS_ALLOWED_ADDRESSES: '127.0.0.1',
      OUTBOUND_WEBHOOKS_CA_FILE: receiver.caFile,
      OUTBOUND_WEBHOOKS_TIMEOUT_MS: '1500',
      OUTBOUND_WEBHOOKS_FIRST_RETRY_MS: '100',
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('webhook endpoints', () => {
  it('take https URLs outside private ranges and event types of the catalogue; another entity’s are not found', async () => {
    const { token, endpoint } = await entityWithEndpoint('/checks');
    const types = (await call('GET', '/api/webhooks/event-types', token)).json<{ version: number; data: { type: string }[] }>();
    expect(types.version).toBe(1);
    expect(types.data.map((d) => d.type)).toEqual(expect.arrayContaining(['lead.created', 'conversation.resolved', 'message.inbound', 'order.created']));
    for (const url of [
      'http://example.com/hook',
      'https://10.0.0.7/hook',
      'https://169.254.169.254/latest',
      'https://localhost/hook',
      'https://user:pw@example.com/',
    ])
      expect((await call('POST', '/api/webhooks/endpoints', token, { url, event_types: ['lead.created'] })).json(), url).toMatchObject({
        status: 400,
        code: 'invalid_webhook_url',
      });
    expect((await call('POST', '/api/webhooks/endpoints', token, { url: 'https://example.com/h', event_types: ['lead.exploded'] })).json()).toMatchObject({
      status: 400,
      code: 'unknown_event_type',
      event_types: ['lead.exploded'],
    });
    const other = await entityWithEndpoint('/elsewhere');
    expect((await call('GET', `/api/webhooks/endpoints/${endpoint.id}`, other.token)).json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await call('GET', `/api/webhooks/endpoints/${endpoint.id}/deliveries`, other.token)).statusCode).toBe(404);
    const agent = await tokenFor(t.app, await makeMember(t.database.db, { entityId: other.entityId, codes: ['leads.view'] }));
    expect((await call('GET', '/api/webhooks/endpoints', agent)).json()).toMatchObject({ status: 403, permission: 'webhooks.manage' });
  });
});

describe('deliveries', () => {
  it('bring an event caused by an API key, signed per Standard Webhooks, with a versioned payload', async () => {
    const { token, endpoint, createLead, deliveries } = await entityWithEndpoint('/signed');
    const key = (await call('POST', '/api/api-keys', token, { name: 'integration', permissions: ['leads.create'] })).json<{ secret: string }>();
    const leadId = await createLead(key.secret);
    await expect.poll(() => callsTo('/signed').length, { timeout: 10_000 }).toBe(1);
    const [received] = callsTo('/signed');
    const verified = new Webhook(endpoint.secret).verify(received!.body, received!.headers) as Delivery['payload'];
    expect(verified).toMatchObject({ type: 'lead.created', version: 1, data: { leadId } });
    expect(received!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(() => new Webhook(`whsec_${Buffer.from('another secret, 24 bytes').toString('base64')}`).verify(received!.body, received!.headers)).toThrow();
    await expect.poll(async () => (await deliveries())[0]?.status).toBe('succeeded');
    const [logged] = await deliveries();
    expect(logged).toMatchObject({ id: received!.headers['webhook-id'], attempts: [{ status: 200, response_excerpt: '{"received":true}', error: null }] });
  });

  it('are retried with the same webhook-id until the receiver recovers, and can be replayed', async () => {
    const { token, endpoint, createLead, deliveries } = await entityWithEndpoint('/flaky');
    receiver.script('/flaky', 500, 503);
    await createLead();
    await expect.poll(() => callsTo('/flaky').length, { timeout: 15_000 }).toBe(3);
    expect(new Set(callsTo('/flaky').map((c) => c.headers['webhook-id'])).size).toBe(1);
    await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 5_000 }).toBe('succeeded');
    const [logged] = await deliveries();
    expect(logged!.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
    // Replay one delivery, then everything since before it: the same webhook-id each time.
    expect((await call('POST', `/api/webhooks/endpoints/${endpoint.id}/deliveries/${logged!.id}/replay`, token)).json()).toEqual({ replayed: 1 });
    await expect.poll(() => callsTo('/flaky').length, { timeout: 10_000 }).toBe(4);
    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await call('POST', `/api/webhooks/endpoints/${endpoint.id}/replay`, token, { since })).json()).toEqual({ replayed: 1 });
    await expect.poll(() => callsTo('/flaky').length, { timeout: 10_000 }).toBe(5);
    expect(new Set(callsTo('/flaky').map((c) => c.headers['webhook-id'])).size).toBe(1);
    expect((await call('POST', `/api/webhooks/endpoints/${endpoint.id}/deliveries/msg_${'0'.repeat(32)}/replay`, token)).statusCode).toBe(404);
  });

  it('are signed with the old and the new secret for a day after a rotation', async () => {
    const { token, endpoint, createLead } = await entityWithEndpoint('/rotated');
    const rotated = (await call('POST', `/api/webhooks/endpoints/${endpoint.id}/rotate-secret`, token)).json<{
      secret: string;
      previous_secret_expires_at: string;
    }>();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(new Date(rotated.previous_secret_expires_at).getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
    await createLead();
    await expect.poll(() => callsTo('/rotated').length, { timeout: 10_000 }).toBe(1);
    const [received] = callsTo('/rotated');
    expect(received!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [rotated.secret, endpoint.secret])
      expect(new Webhook(secret).verify(received!.body, received!.headers)).toMatchObject({ type: 'lead.created' });
  });
});

describe('failing endpoints', () => {
  it('are disabled at once by a 410, and managers hear of it', async () => {
    const disabled = captureEvents(t.app, ['webhook_endpoint.disabled']);
    const { token, endpoint, createLead } = await entityWithEndpoint('/gone');
    receiver.script('/gone', 410);
    await createLead();
    await expect.poll(() => disabled.find((e) => e.payload.endpointId === endpoint.id)?.payload.reason, { timeout: 10_000 }).toBe('gone');
    expect((await call('GET', `/api/webhooks/endpoints/${endpoint.id}`, token)).json()).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    await createLead();
    expect(callsTo('/gone')).toHaveLength(1);
  });

  it('are disabled after failing for 5 days in a row', async () => {
    const disabled = captureEvents(t.app, ['webhook_endpoint.disabled']);
    const { token, endpoint, createLead } = await entityWithEndpoint('/failing');
    await t.database.db.execute(sql`update webhook_endpoint set failing_since = now() - interval '5 days 1 minute' where id = ${endpoint.id}`);
    receiver.script('/failing', 500);
    await createLead();
    await expect.poll(() => disabled.find((e) => e.payload.endpointId === endpoint.id)?.payload.reason, { timeout: 10_000 }).toBe('failing');
    expect((await call('GET', `/api/webhooks/endpoints/${endpoint.id}`, token)).json()).toMatchObject({ enabled: false, disabled_reason: 'failing' });
  });

  it('cost a bounded attempt when they hang, answer 5 MB or redirect (never followed)', async () => {
    const { createLead, deliveries } = await entityWithEndpoint('/odd');
    receiver.script('/odd', 'hang', 'huge');
    await createLead();
    await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 15_000 }).toBe('succeeded');
    const [first] = await deliveries();
    expect(first!.attempts[0]).toMatchObject({ status: null, error: 'no answer within 1500 ms' });
    expect(first!.attempts[1]).toMatchObject({ status: 200 });
    expect(first!.attempts[1]!.response_excerpt).toHaveLength(1000);

    const redirected = await entityWithEndpoint('/moving');
    receiver.script('/moving', 'redirect');
    await redirected.createLead();
    await expect.poll(async () => (await redirected.deliveries())[0]?.status, { timeout: 10_000 }).toBe('succeeded');
    expect((await redirected.deliveries())[0]!.attempts.map((a) => a.status)).toEqual([302, 200]);
    expect(receiver.calls.some((c) => c.path === '/moving-moved')).toBe(false);
  });
});
