/**
 * The privileged communications operations over HTTP against the simulator: the operator allow-list on
 * every endpoint, the per-entity config with sealed and masked secrets, webhook registration with the URL
 * of the deployment's mode, token rotation, login, and the re-sync after a login.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, login, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';
import { webhookUrl } from '../../../src/modules/interactions/communications/communications-operations.service.js';
import { testConfig } from '../../helpers/test-app.js';

const OPERATOR = 'ops@example.com';
const PALETTE = ['communications.command_palette.view'];
let t: TestContext;
let sim: ProviderSimulator;
let operatorToken: string;
let plainToken: string;
let entityId: number;
let otherEntityOperator: string;
let allowListedWithoutPalette: string;
let seller: string;

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: 'entity-key-123456' });
  t = await createTestApp({
    env: {
      COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: `${OPERATOR.toUpperCase()}, other-ops@example.com, third-ops@example.com`,
      ERP_ENV: 'prod',
      PUBLIC_BASE_URL: 'https://crm.example.com/',
      COMMUNICATIONS_USER_WEBHOOK_RESYNC_ENABLED: 'true',
      COMMUNICATIONS_AUTO_LOGIN_ON_AUTH: 'true',
    },
  });
  entityId = (await makeEntity(t.database.db, 'Ops')).id;
  operatorToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId, email: OPERATOR, codes: PALETTE }));
  plainToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId, superAdmin: true }));
  otherEntityOperator = await tokenFor(
    t.app,
    await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db, 'Elsewhere')).id, email: 'other-ops@example.com', codes: PALETTE }),
  );
  allowListedWithoutPalette = await tokenFor(t.app, await makeMember(t.database.db, { entityId, email: 'third-ops@example.com', codes: ['leads.view'] }));
  seller = await tokenFor(t.app, await makeMember(t.database.db, { entityId, codes: ['leads.view'] }));
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const call = (method: 'GET' | 'PUT' | 'POST', path: string, token: string, payload?: object) =>
  t.app.inject({ method, url: `/api/interactions/communications/${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });

describe('privileged operator endpoints', () => {
  it.each([
    ['GET', 'config', undefined],
    ['PUT', 'config', { external_app_id: 'app-1' }],
    ['POST', 'webhook-sync', undefined],
    ['POST', 'meta-token-rotate', { access_token: 'EAAG-new-token-1234' }],
    ['POST', 'manual-login', undefined],
  ] as const)('%s %s refuses a caller outside the allow-list, even a super administrator', async (method, path, payload) => {
    const res = await call(method, path, plainToken, payload);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('not_privileged_operator');
  });

  it.each([
    ['GET', 'config', undefined],
    ['PUT', 'config', { external_app_id: 'app-1' }],
    ['POST', 'webhook-sync', undefined],
    ['POST', 'meta-token-rotate', { access_token: 'EAAG-new-token-1234' }],
    ['POST', 'manual-login', undefined],
  ] as const)('%s %s refuses an allow-listed caller without communications.command_palette.view', async (method, path, payload) => {
    const res = await call(method, path, allowListedWithoutPalette, payload);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'permission_denied', permission: 'communications.command_palette.view' });
  });

  it.each([
    ['PUT', 'config', { base_url: 42, unknown: true }],
    ['POST', 'meta-token-rotate', { access_token: 1 }],
    ['POST', 'meta-token-rotate', { nope: 'x'.repeat(5000) }],
  ] as const)('%s %s answers 403 to a seller with a malformed body, never describing the body', async (method, path, payload) => {
    for (const token of [seller, plainToken]) {
      const res = await call(method, path, token, payload);
      expect(res.statusCode).toBe(403);
      expect(res.body).not.toContain('access_token');
      expect(res.json().errors).toBeUndefined();
    }
    const anonymous = await t.app.inject({ method, url: `/api/interactions/communications/${path}`, payload });
    expect(anonymous.statusCode).toBe(401);
  });

  it('sets the config with secrets sealed and never returned, only masked', async () => {
    const set = await call('PUT', 'config', operatorToken, {
      base_url: sim.url,
      api_key: 'entity-key-123456',
      meta_access_token: 'EAAG-secret-token-9876',
      external_app_id: 'app-ops',
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      base_url: sim.url,
      external_app_id: 'app-ops',
      api_key: { configured: true, last4: '3456' },
      meta_access_token: { configured: true, last4: '9876' },
    });
    expect(set.body).not.toContain('entity-key-123456');
    const rows = await t.database.db.execute(
      `select api_key_encrypted, meta_access_token_encrypted from interaction_communications_config where entity_id = ${entityId}`,
    );
    expect(JSON.stringify(rows)).not.toContain('entity-key-123456');
    expect(JSON.stringify(rows)).not.toContain('EAAG-secret-token-9876');
    const other = await call('GET', 'config', otherEntityOperator);
    expect(other.json()).toMatchObject({ base_url: null, api_key: { configured: false } });
  });

  it('registers the production webhook URL, rotates the token and logs in at the communications service', async () => {
    const sync = await call('POST', 'webhook-sync', operatorToken);
    expect(sync.json()).toEqual({ url: 'https://crm.example.com/api/interactions/webhooks/communications' });
    expect(sim.registered.webhookUrl).toBe('https://crm.example.com/api/interactions/webhooks/communications');
    const rotated = await call('POST', 'meta-token-rotate', operatorToken, { access_token: 'EAAG-rotated-token-5555' });
    expect(rotated.json().meta_access_token).toEqual({ configured: true, last4: '5555' });
    expect(sim.registered.metaToken).toBe('EAAG-rotated-token-5555');
    const logged = await call('POST', 'manual-login', operatorToken);
    expect(logged.json()).toEqual({ communications_entity_id: 'sim-entity-1' });
    expect((await call('GET', 'config', operatorToken)).json().communications_entity_id).toBe('sim-entity-1');
  });

  it('answers 422 for an entity whose communications service is not configured', async () => {
    const res = await call('POST', 'manual-login', otherEntityOperator);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('communications_not_configured');
  });

  it('logs in and re-syncs the webhook after a login when the flags say so', async () => {
    sim.registered.webhookUrl = null;
    const logins = sim.registered.logins;
    const member = await makeMember(t.database.db, { entityId });
    await login(t.app, member);
    expect(sim.registered.logins).toBe(logins + 1);
    expect(sim.registered.webhookUrl).toBe('https://crm.example.com/api/interactions/webhooks/communications');
  });
});

describe('an empty operator allow-list', () => {
  it('refuses every operator endpoint to everyone, a super administrator holding every permission included', async () => {
    const empty = await createTestApp();
    try {
      const entity = await makeEntity(empty.database.db, 'Nobody operates');
      const admin = await tokenFor(empty.app, await makeMember(empty.database.db, { entityId: entity.id, superAdmin: true, codes: PALETTE }));
      for (const [method, url] of [
        ['GET', '/interactions/communications/config'],
        ['PUT', '/interactions/communications/config'],
        ['POST', '/api/interactions/communications/webhook-sync'],
        ['POST', '/interactions/communications/meta-token-rotate'],
        ['POST', '/api/interactions/communications/manual-login'],
        ['GET', '/api/interactions/webhooks/dead-letters'],
        ['GET', '/api/interactions/webhooks/unroutable'],
        ['POST', '/api/interactions/webhooks/retry'],
      ] as const) {
        const res = await empty.app.inject({ method, url, headers: bearer(admin), ...(method === 'GET' ? {} : { payload: { ids: [1] } }) });
        expect({ url, status: res.statusCode, code: res.json().code }).toEqual({ url, status: 403, code: 'not_privileged_operator' });
      }
    } finally {
      await empty.close();
    }
  });
});

describe('the webhook URL of each mode', () => {
  const config = (env: Record<string, string>) => testConfig(env);
  it('uses PUBLIC_BASE_URL in production, the host variable in preview and the tunnel in development', () => {
    expect(webhookUrl(config({ ERP_ENV: 'prod', RENDER_EXTERNAL_URL: 'https://crm-pr-12.onrender.com' }))).toBeNull();
    expect(webhookUrl(config({ ERP_ENV: 'preview', RENDER_EXTERNAL_URL: 'https://crm-pr-12.onrender.com' }))).toBe(
      'https://crm-pr-12.onrender.com/api/interactions/webhooks/communications',
    );
    expect(webhookUrl(config({ ERP_ENV: 'preview', VERCEL_URL: 'crm-git-x.vercel.app' }))).toBe(
      'https://crm-git-x.vercel.app/api/interactions/webhooks/communications',
    );
    expect(webhookUrl(config({ ERP_ENV: 'preview', FLY_APP_NAME: 'crm-pr-12' }))).toBe('https://crm-pr-12.fly.dev/api/interactions/webhooks/communications');
    expect(webhookUrl(config({ ERP_ENV: 'preview' }))).toBeNull();
    expect(webhookUrl(config({ ERP_ENV: 'dev', COMMUNICATIONS_DEV_TUNNEL_URL: 'https://abc.trycloudflare.com' }))).toBeNull();
    expect(
      webhookUrl(config({ ERP_ENV: 'dev', COMMUNICATIONS_DEV_TUNNEL_ENABLED: 'true', COMMUNICATIONS_DEV_TUNNEL_URL: 'https://abc.trycloudflare.com' })),
    ).toBe('https://abc.trycloudflare.com/api/interactions/webhooks/communications');
  });
});
