/**
 * The website chat's isolation, tested like tenant isolation (issue 32): a visitor token opens nothing but
 * its own conversation, across visitors, web accounts and entities; forged identity signatures and wrong
 * origins are refused on every request and handshake; the rate limits answer 429.
 */
import { createHmac } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { listen, waitFor, waitForConversation } from '../../helpers/interactions.js';
import { SITE, chatOf, connectVisitor, makeWebAccount, newVisitor, startSession, visitorRequest, type VisitorSession } from '../../helpers/web-visitor.js';

const EVIL = 'https://evil.example';
let t: TestContext;
let baseUrl: string;
let staffA: string;
let staffB: string;
let a1: { id: number; websiteToken: string };
let a2: { id: number; websiteToken: string };
let b1: { id: number; websiteToken: string };
let secretA1: string;
let secretA2: string;
const sockets: Socket[] = [];

/** A site's identity proof for `identifier`, signed `ageSeconds` ago. */
const signed = (secret: string, identifier: string, ageSeconds = 0) => {
  const timestamp = Math.floor(Date.now() / 1000) - ageSeconds;
  return { identifier, timestamp, signature: createHmac('sha256', secret).update(`${timestamp}.${identifier}`).digest('hex') };
};
const history = (site: { websiteToken: string }, v: VisitorSession, origin?: string) =>
  visitorRequest(t.app, site.websiteToken, v.visitor_token, { method: 'GET', path: '/messages', ...(origin ? { origin } : {}) });
const say = (site: { websiteToken: string }, v: VisitorSession, text: string) =>
  visitorRequest(t.app, site.websiteToken, v.visitor_token, { method: 'POST', path: '/messages', payload: { text } });

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  baseUrl = await listen(t.app);
  const codes = ['entity_channel_accounts.view', 'entity_channel_accounts.create', 'entity_channel_accounts.edit'];
  const entityA = await makeEntity(t.database.db);
  const entityB = await makeEntity(t.database.db);
  staffA = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityA.id, codes }));
  staffB = await tokenFor(t.app, await makeMember(t.database.db, { entityId: entityB.id, codes }));
  a1 = await makeWebAccount(t.app, staffA);
  a2 = await makeWebAccount(t.app, staffA);
  b1 = await makeWebAccount(t.app, staffB);
  const secret = async (site: { id: number }) =>
    (await t.app.inject({ method: 'POST', url: `/entity-channel-accounts/${site.id}/web/identity-secret`, headers: bearer(staffA) })).json<{
      identity_secret: string;
    }>().identity_secret;
  secretA1 = await secret(a1);
  secretA2 = await secret(a2);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.close();
});

describe('visitor tokens', () => {
  it('open only their own conversation: across visitors, accounts and entities', async () => {
    const ana = await newVisitor(t.app, a1.websiteToken);
    const ben = await newVisitor(t.app, a1.websiteToken);
    const bea = await newVisitor(t.app, b1.websiteToken);
    await say(a1, ana, 'from ana');
    await say(a1, ben, 'from ben');
    await say(b1, bea, 'from bea');
    await waitForConversation(t.app, staffA, chatOf(ana.visitor_token));
    await waitForConversation(t.app, staffA, chatOf(ben.visitor_token));
    await waitForConversation(t.app, staffB, chatOf(bea.visitor_token));
    expect((await history(a1, ana)).json()).toMatchObject({ data: [{ text: 'from ana' }] });
    expect((await history(a1, ana)).json<{ data: unknown[] }>().data).toHaveLength(1);
    expect((await history(a1, ben)).json()).toMatchObject({ data: [{ text: 'from ben' }] });

    // Another account of the same entity, another entity's account: refused.
    for (const site of [a2, b1]) {
      const res = await history(site, ana);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'invalid_visitor_token' });
      expect((await say(site, ana, 'x')).statusCode).toBe(401);
    }
    // A token whose payload was changed to another visitor's chat: the signature no longer holds.
    const [h, p, s] = ana.visitor_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = [h, Buffer.from(JSON.stringify({ ...claims, chat: chatOf(ben.visitor_token), vid: ben.visitor.id })).toString('base64url'), s].join('.');
    const res = await visitorRequest(t.app, a1.websiteToken, forged, { method: 'GET', path: '/messages' });
    expect(res.statusCode).toBe(401);
    // A resume with another account's token starts nothing.
    expect((await startSession(t.app, a2.websiteToken, { visitor_token: ana.visitor_token })).statusCode).toBe(401);
  });

  it('are never staff tokens, nor the reverse', async () => {
    const ana = await newVisitor(t.app, a1.websiteToken);
    expect((await t.app.inject({ method: 'GET', url: '/interactions/conversations', headers: bearer(ana.visitor_token) })).statusCode).toBe(401);
    const res = await visitorRequest(t.app, a1.websiteToken, staffA, { method: 'GET', path: '/messages' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'invalid_visitor_token' });
    expect((await t.app.inject({ method: 'GET', url: `/api/widget/${a1.websiteToken}/messages`, headers: { origin: SITE } })).statusCode).toBe(401);
  });

  it('reach no other visitor over the sockets', async () => {
    const ana = await newVisitor(t.app, a1.websiteToken);
    const ben = await newVisitor(t.app, a1.websiteToken);
    await say(a1, ben, 'hello');
    const conv = await waitForConversation(t.app, staffA, chatOf(ben.visitor_token));
    const anaSocket = await connectVisitor(baseUrl, { website_token: a1.websiteToken, token: ana.visitor_token });
    const benSocket = await connectVisitor(baseUrl, { website_token: a1.websiteToken, token: ben.visitor_token });
    sockets.push(anaSocket.socket, benSocket.socket);
    const reply = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/messages/text`,
      headers: bearer(staffA),
      payload: { body: 'for ben' },
    });
    expect(reply.statusCode).toBe(202);
    await waitFor(() => benSocket.events.find((e) => e.name === 'widget.message'));
    await t.app.inject({ method: 'POST', url: `/interactions/conversations/${conv.id}/typing`, headers: bearer(staffA), payload: { typing: true } });
    await waitFor(() => benSocket.events.find((e) => e.name === 'widget.typing'));
    expect(anaSocket.events.map((e) => e.name)).toEqual(['widget.ready']);
    // Another entity's agent cannot type into it either.
    expect(
      (await t.app.inject({ method: 'POST', url: `/interactions/conversations/${conv.id}/typing`, headers: bearer(staffB), payload: { typing: true } }))
        .statusCode,
    ).toBe(404);
    // A socket with another account's website token, or a bad token, is refused at the handshake.
    await expect(connectVisitor(baseUrl, { website_token: a2.websiteToken, token: ana.visitor_token })).rejects.toMatchObject({
      data: { code: 'invalid_visitor_token' },
    });
    await expect(connectVisitor(baseUrl, { website_token: a1.websiteToken, token: 'nope' })).rejects.toMatchObject({ data: { code: 'invalid_visitor_token' } });
  });
});

describe('identity verification', () => {
  it('maps a signed identifier to one visitor and conversation on every device; unsigned visitors never reach it', async () => {
    const identity = signed(secretA1, 'customer-42');
    const phone = (await startSession(t.app, a1.websiteToken, { identity, prechat: { name: 'Carla', email: 'carla@example.com' } })).json<VisitorSession>();
    expect(phone.visitor.verified).toBe(true);
    await say(a1, phone, 'from my phone');
    const conv = await waitForConversation(t.app, staffA, chatOf(phone.visitor_token));
    const laptop = (await startSession(t.app, a1.websiteToken, { identity })).json<VisitorSession>();
    expect(laptop).toMatchObject({ visitor: { id: phone.visitor.id }, conversation_id: conv.id });
    expect((await history(a1, laptop)).json()).toMatchObject({ data: [{ text: 'from my phone' }] });

    // The same name and e-mail without a signature: a visitor of its own, with its own conversation and contact.
    const impostor = await newVisitor(t.app, a1.websiteToken, { name: 'Carla', email: 'carla@example.com' });
    await say(a1, impostor, 'me too');
    const other = await waitForConversation(t.app, staffA, chatOf(impostor.visitor_token));
    expect(other.id).not.toBe(conv.id);
    expect(other.contact_id).not.toBe((await waitForConversation(t.app, staffA, chatOf(phone.visitor_token))).contact_id);
    expect((await history(a1, impostor)).json<{ data: { text: string }[] }>().data.map((m) => m.text)).toEqual(['me too']);
    // A verified visitor resumes only by signing again: its token alone is not enough.
    expect((await startSession(t.app, a1.websiteToken, { visitor_token: laptop.visitor_token })).statusCode).toBe(401);
  });

  it('refuses forged signatures: wrong, for another identifier, with another account’s secret, on an account without a secret', async () => {
    const good = signed(secretA1, 'customer-42');
    const cases = [
      [a1, { ...good, signature: 'a'.repeat(64) }],
      [a1, { ...good, identifier: 'customer-43' }],
      [a1, { ...good, timestamp: good.timestamp + 1 }],
      [a1, signed(secretA2, 'customer-42')],
      [b1, good],
    ] as const;
    for (const [site, identity] of cases) {
      const res = await startSession(t.app, site.websiteToken, { identity });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'invalid_identity_signature' });
    }
  });

  it('refuses a signature past its age (24 hours) or dated ahead, and one without a timestamp', async () => {
    for (const identity of [signed(secretA1, 'customer-42', 24 * 3600 + 60), signed(secretA1, 'customer-42', -3600)]) {
      const res = await startSession(t.app, a1.websiteToken, { identity });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'identity_signature_expired' });
    }
    expect((await startSession(t.app, a1.websiteToken, { identity: signed(secretA1, 'customer-42', 23 * 3600) })).statusCode).toBe(200);
    // The permanent form (identifier alone) is no longer a login.
    const legacy = createHmac('sha256', secretA1).update('customer-42').digest('hex');
    const res = await startSession(t.app, a1.websiteToken, { identity: { identifier: 'customer-42', signature: legacy } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body/identity/timestamp' }] });
  });

  it('keeps every device of a verified customer signed in: the phone still sends after the laptop signs in', async () => {
    const phone = (await startSession(t.app, a1.websiteToken, { identity: signed(secretA1, 'customer-77') })).json<VisitorSession>();
    const laptop = (await startSession(t.app, a1.websiteToken, { identity: signed(secretA1, 'customer-77') })).json<VisitorSession>();
    expect(laptop.visitor.id).toBe(phone.visitor.id);
    expect((await say(a1, phone, 'from the phone')).statusCode).toBe(202);
    expect((await say(a1, laptop, 'from the laptop')).statusCode).toBe(202);
    await waitForConversation(t.app, staffA, chatOf(phone.visitor_token));
    await waitFor(async () => ((await history(a1, phone)).json<{ data: unknown[] }>().data.length === 2 ? true : undefined));
  });
});

describe('origins', () => {
  it('refuses every request and handshake from an origin the account does not allow', async () => {
    const ana = await newVisitor(t.app, a1.websiteToken);
    const requests = [
      t.app.inject({ method: 'GET', url: `/api/widget/${a1.websiteToken}/config`, headers: { origin: EVIL } }),
      startSession(t.app, a1.websiteToken, { prechat: { name: 'x' } }, EVIL),
      startSession(t.app, b1.websiteToken, { prechat: { name: 'x' } }, EVIL),
      history(a1, ana, EVIL),
      visitorRequest(t.app, a1.websiteToken, ana.visitor_token, { method: 'POST', path: '/messages', payload: { text: 'x' }, origin: EVIL }),
      visitorRequest(t.app, a1.websiteToken, ana.visitor_token, { method: 'POST', path: '/read', payload: { message_id: 1 }, origin: EVIL }),
      visitorRequest(t.app, a1.websiteToken, ana.visitor_token, {
        method: 'POST',
        path: '/uploads',
        payload: { file_name: 'a.png', content_type: 'image/png', size: 10 },
        origin: EVIL,
      }),
      // No Origin at all (not the service's own page either).
      t.app.inject({ method: 'GET', url: `/api/widget/${a1.websiteToken}/config` }),
    ];
    for (const res of await Promise.all(requests)) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'origin_not_allowed' });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: `/api/widget/${a1.websiteToken}/messages`,
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
    expect((await preflight(EVIL)).headers['access-control-allow-origin']).toBeUndefined();
    const ok = await preflight(SITE);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(SITE);
    await expect(connectVisitor(baseUrl, { website_token: a1.websiteToken, token: ana.visitor_token }, EVIL)).rejects.toMatchObject({
      data: { code: 'origin_not_allowed' },
    });
    // The service's own pages (its demo) may use any of its websites: its origin is the address it was
    // reached on (PUBLIC_BASE_URL when set), never what `Host` says.
    for (const origin of [baseUrl, baseUrl.replace('127.0.0.1', 'localhost')]) {
      const own = await fetch(`${baseUrl}/api/widget/${a1.websiteToken}/config`, { headers: { origin } });
      expect(own.status).toBe(200);
      expect(own.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const spoofed = await t.app.inject({ method: 'GET', url: `/api/widget/${a1.websiteToken}/config`, headers: { origin: 'http://evil', host: 'evil' } });
    expect(spoofed.statusCode).toBe(403);
    expect(spoofed.json()).toMatchObject({ code: 'origin_not_allowed' });
    expect(spoofed.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers 404 for an unknown or inactive website', async () => {
    expect((await startSession(t.app, 'wt_nope', { prechat: { name: 'x' } })).statusCode).toBe(404);
  });
});

describe('rate limits', () => {
  it('answer 429 per visitor and per client address', async () => {
    const limited = await createTestApp({ env: { WIDGET_RATE_LIMIT_PER_IP: '8', WIDGET_RATE_LIMIT_PER_VISITOR: '3' } });
    try {
      const staff = await tokenFor(
        limited.app,
        await makeMember(limited.database.db, {
          entityId: (await makeEntity(limited.database.db)).id,
          codes: ['entity_channel_accounts.create', 'entity_channel_accounts.edit'],
        }),
      );
      const site = await makeWebAccount(limited.app, staff);
      const v = await newVisitor(limited.app, site.websiteToken); // address: 1
      const read = () => visitorRequest(limited.app, site.websiteToken, v.visitor_token, { method: 'GET', path: '/messages' });
      for (let i = 0; i < 3; i++) expect((await read()).statusCode).toBe(200); // address: 4, visitor: 3
      const over = await read(); // address: 5
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      const config = () => limited.app.inject({ method: 'GET', url: `/api/widget/${site.websiteToken}/config`, headers: { origin: SITE } });
      for (let i = 0; i < 3; i++) expect((await config()).statusCode).toBe(200); // address: 8
      expect((await config()).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
