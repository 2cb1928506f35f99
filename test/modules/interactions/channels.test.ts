/** `GET /interactions/channels`: the channel catalogue of SPEC "Interactions resources" with availability. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';

let t: TestContext;
let token: string;
beforeAll(async () => {
  t = await createTestApp();
  token = await tokenFor(
    t.app,
    await makeMember(t.database.db, {
      entityId: (await makeEntity(t.database.db)).id,
      codes: ['entity_channel_accounts.view', 'entity_channel_accounts.create'],
    }),
  );
});
afterAll(async () => t.close());

describe('the channel catalogue', () => {
  it('lists each channel with its availability, channel type codes and message types, bare and under /api', async () => {
    for (const url of ['/interactions/channels', '/api/interactions/channels']) {
      const res = await t.app.inject({ method: 'GET', url, headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      const data = res.json<{ data: { channel: string; availability: string; channel_type_codes: string[]; message_types: string[] }[] }>().data;
      expect(data.map((c) => [c.channel, c.availability, c.channel_type_codes])).toEqual([
        ['chatapp', 'production', ['chatapp_api', 'chatapp_business']],
        ['social_dm', 'available', ['social_dm']],
        ['social_messenger', 'available', ['social_messenger']],
        ['shortvideo', 'planned', []],
        ['web', 'available', ['web']],
      ]);
      const types = Object.fromEntries(data.map((c) => [c.channel, c.message_types]));
      expect(types.chatapp).toEqual(expect.arrayContaining(['text', 'image', 'template', 'sticker']));
      expect(types.social_dm).toContain('text');
      expect(types.social_dm).not.toContain('template');
      expect(types.web).toEqual(['text', 'image', 'document']);
      expect(types.shortvideo).toEqual([]);
    }
    expect((await t.app.inject({ method: 'GET', url: '/interactions/channels' })).statusCode).toBe(401);
  });

  it('refuses to register an account of a planned channel with 422 channel_planned; an available one registers', async () => {
    for (const channel of ['shortvideo']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/entity-channel-accounts',
        headers: bearer(token),
        payload: { channel_type_code: channel, external_account_id: `acct-${channel}`, display_name: 'Planned' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'channel_planned', channel });
    }
    const list = await t.app.inject({ method: 'GET', url: '/entity-channel-accounts', headers: bearer(token) });
    expect(list.json<{ data: unknown[] }>().data).toEqual([]);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/entity-channel-accounts',
      headers: bearer(token),
      payload: { channel_type_code: 'social_dm', external_account_id: 'ig-1', display_name: 'Instagram' },
    });
    expect(ok.statusCode).toBe(201);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/entity-channel-accounts',
      headers: bearer(token),
      payload: { channel_type_code: 'fax', external_account_id: 'f-1', display_name: 'Fax' },
    });
    expect(unknown.statusCode).toBe(400);
  });

  it('registers a web account with a generated website token; an external account id is refused for web and required for the others', async () => {
    const web = await t.app.inject({
      method: 'POST',
      url: '/entity-channel-accounts',
      headers: bearer(token),
      payload: { channel_type_code: 'web', display_name: 'Website' },
    });
    expect(web.statusCode).toBe(201);
    expect(web.json()).toMatchObject({ channel_type_code: 'web', external_account_id: expect.stringMatching(/^wt_[\w-]{24}$/) });
    const given = await t.app.inject({
      method: 'POST',
      url: '/entity-channel-accounts',
      headers: bearer(token),
      payload: { channel_type_code: 'web', display_name: 'Website', external_account_id: 'mine' },
    });
    expect(given.statusCode).toBe(400);
    expect(given.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body/external_account_id' }] });
    const missing = await t.app.inject({
      method: 'POST',
      url: '/entity-channel-accounts',
      headers: bearer(token),
      payload: { channel_type_code: 'social_dm', display_name: 'Instagram' },
    });
    expect(missing.statusCode).toBe(400);
  });
});
