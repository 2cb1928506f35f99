/**
 * The website chat end to end over the public surface (issue 32): web account settings, visitor sessions,
 * a visitor's message through the inbox, projection, routing and the `message.inbound` trigger (channel
 * `web`), the agent's reply with the send endpoints delivered to the visitor's socket, statuses, typing and
 * read receipts both ways, history as plain text, uploads through the media module.
 */
import sharp from 'sharp';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { captureEvents, connectSocket, listen, waitFor, waitForConversation, type ReceivedEvent } from '../../helpers/interactions.js';
import { SITE, chatOf, connectVisitor, makeWebAccount, newVisitor, startSession, visitorRequest } from '../../helpers/web-visitor.js';

let t: TestContext;
let baseUrl: string;
let staff: string;
let site: { id: number; websiteToken: string };
let agent: { socket: Socket; events: ReceivedEvent[] };
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  baseUrl = await listen(t.app);
  const entity = await makeEntity(t.database.db);
  const member = await makeMember(t.database.db, {
    entityId: entity.id,
    codes: ['entity_channel_accounts.view', 'entity_channel_accounts.create', 'entity_channel_accounts.edit'],
  });
  staff = await tokenFor(t.app, member);
  site = await makeWebAccount(t.app, staff, { prechat_fields: { name: 'required', email: 'optional', phone: 'off' }, greeting_text: 'Hello!' });
  agent = await connectSocket(baseUrl, { token: staff });
  sockets.push(agent.socket);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.close();
});

describe('web account settings', () => {
  it('reads and changes the settings; the identity secret is shown once, then only its last 4 characters', async () => {
    const read = await t.app.inject({ method: 'GET', url: `/entity-channel-accounts/${site.id}/web`, headers: bearer(staff) });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      website_token: site.websiteToken,
      allowed_origins: [SITE],
      greeting_text: 'Hello!',
      prechat_fields: { name: 'required', email: 'optional', phone: 'off' },
      identity_secret: { configured: false, last4: null },
      embed_snippet: expect.stringContaining(`data-website-token="${site.websiteToken}"`),
    });
    const secret = await t.app.inject({ method: 'POST', url: `/api/entity-channel-accounts/${site.id}/web/identity-secret`, headers: bearer(staff) });
    expect(secret.statusCode).toBe(201);
    const { identity_secret: value, last4 } = secret.json<{ identity_secret: string; last4: string }>();
    expect(value.endsWith(last4)).toBe(true);
    const after = await t.app.inject({ method: 'GET', url: `/entity-channel-accounts/${site.id}/web`, headers: bearer(staff) });
    expect(JSON.stringify(after.json())).not.toContain(value);
    expect(after.json()).toMatchObject({ identity_secret: { configured: true, last4 } });
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/entity-channel-accounts/${site.id}/web`,
      headers: bearer(staff),
      payload: { allowed_origins: ['https://shop.example/path'] },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 404 for a non-web account and for another entity’s web account', async () => {
    const ig = await t.app.inject({
      method: 'POST',
      url: '/entity-channel-accounts',
      headers: bearer(staff),
      payload: { channel_type_code: 'social_dm', external_account_id: `ig-${Date.now()}`, display_name: 'IG' },
    });
    expect(
      (await t.app.inject({ method: 'GET', url: `/entity-channel-accounts/${ig.json<{ id: number }>().id}/web`, headers: bearer(staff) })).statusCode,
    ).toBe(404);
    const other = await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db)).id, codes: ['entity_channel_accounts.view'] });
    const res = await t.app.inject({ method: 'GET', url: `/entity-channel-accounts/${site.id}/web`, headers: bearer(await tokenFor(t.app, other)) });
    expect(res.statusCode).toBe(404);
  });
});

describe('a visitor and an agent', () => {
  it('requires the pre-chat fields the website requires', async () => {
    const res = await startSession(t.app, site.websiteToken, { prechat: { email: 'a@b.example' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body/prechat/name' }] });
  });

  it('carries a conversation both ways through the same pipeline, with statuses, typing and read receipts', async () => {
    const inbound = captureEvents(t.app, ['message.inbound']);
    const session = await newVisitor(t.app, site.websiteToken, { name: 'Ana <b>Pérez</b>', email: 'ana@example.com' });
    expect(session).toMatchObject({ conversation_id: null, visitor: { verified: false }, widget: { greeting_text: 'Hello!', display_name: 'Website' } });
    const visitor = await connectVisitor(baseUrl, { website_token: site.websiteToken, token: session.visitor_token });
    sockets.push(visitor.socket);
    expect(visitor.ready).toEqual({ visitor_id: session.visitor.id, conversation_id: null });

    const html = '<img src=x onerror=alert(1)> hello';
    const sent = await visitorRequest(t.app, site.websiteToken, session.visitor_token, {
      method: 'POST',
      path: '/messages',
      payload: { text: html, client_message_id: 'm1' },
    });
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toMatchObject({ duplicate: false });
    const again = await visitorRequest(t.app, site.websiteToken, session.visitor_token, {
      method: 'POST',
      path: '/messages',
      payload: { text: html, client_message_id: 'm1' },
    });
    expect(again.json()).toMatchObject({ duplicate: true });

    const chat = chatOf(session.visitor_token);
    const conv = await waitForConversation(t.app, staff, chat);
    // No service window applies to the web: the conversation shows none.
    expect(conv).toMatchObject({
      channel_type_code: 'web',
      sender_name: 'Ana <b>Pérez</b>',
      entity_channel_account_id: site.id,
      service_window_expires_at: null,
    });
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.created' && e.payload.conversation_id === conv.id));
    const created = agent.events.find((e) => e.name === 'interaction.message.created' && e.payload.conversation_id === conv.id)!;
    expect(created.payload.message).toMatchObject({ direction: 'inbound', type: 'text', text: html });
    const trigger = await waitFor(() => inbound.find((e) => e.payload.external_chat_id === chat));
    expect(trigger.payload).toMatchObject({ channel_type_code: 'web', message_text: html, sender_name: 'Ana <b>Pérez</b>', is_first_message: true });

    // Typing, visitor → agent.
    visitor.socket.emit('widget.typing', { typing: true });
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.visitor.typing' && e.payload.conversation_id === conv.id && e.payload.typing));
    // Typing, agent → visitor.
    const typing = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/typing`,
      headers: bearer(staff),
      payload: { typing: true },
    });
    expect(typing.statusCode).toBe(204);
    await waitFor(() => visitor.events.find((e) => e.name === 'widget.typing' && e.payload.typing === true));

    // The agent answers with the send endpoint; no communications service is configured, none is needed.
    const reply = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/messages/text`,
      headers: bearer(staff),
      payload: { body: 'Hi Ana, <script>x</script> how can I help?' },
    });
    expect(reply.statusCode).toBe(202);
    const replyId = reply.json<{ id: number }>().id;
    const pushed = await waitFor(() => visitor.events.find((e) => e.name === 'widget.message'));
    expect(pushed.payload.message).toMatchObject({ id: replyId, author: 'agent', type: 'text', text: 'Hi Ana, <script>x</script> how can I help?' });
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.status' && e.payload.message_id === replyId && e.payload.status === 'sent'));

    // The visitor's widget acknowledges and reads: the agent sees delivered, then read.
    visitor.socket.emit('widget.delivered', { message_id: replyId });
    await waitFor(() =>
      agent.events.find((e) => e.name === 'interaction.message.status' && e.payload.message_id === replyId && e.payload.status === 'delivered'),
    );
    const read = await visitorRequest(t.app, site.websiteToken, session.visitor_token, { method: 'POST', path: '/read', payload: { message_id: replyId } });
    expect(read.statusCode).toBe(204);
    await waitFor(() => agent.events.find((e) => e.name === 'interaction.message.status' && e.payload.message_id === replyId && e.payload.status === 'read'));

    // The agent reads the conversation: the visitor hears it.
    expect((await t.app.inject({ method: 'POST', url: `/interactions/conversations/${conv.id}/read`, headers: bearer(staff) })).statusCode).toBe(200);
    await waitFor(() => visitor.events.find((e) => e.name === 'widget.read'));

    // A kind the web cannot carry is refused clearly.
    const location = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/messages/location`,
      headers: bearer(staff),
      payload: { latitude: 1, longitude: 2 },
    });
    expect(location.statusCode).toBe(422);
    expect(location.json()).toMatchObject({ code: 'unsupported_message_type', platform: 'web', kind: 'location' });

    // History: newest first, text as text.
    const history = await visitorRequest(t.app, site.websiteToken, session.visitor_token, { method: 'GET', path: '/messages' });
    expect(history.statusCode).toBe(200);
    expect(history.json()).toMatchObject({
      conversation_id: conv.id,
      data: [
        { id: replyId, author: 'agent', text: 'Hi Ana, <script>x</script> how can I help?', status: 'read' },
        { author: 'visitor', text: html },
      ],
    });
  });

  it('resumes a visitor with a rotated token: the old one stops working and its sockets are closed, the conversation is the same', async () => {
    const first = await newVisitor(t.app, site.websiteToken);
    await visitorRequest(t.app, site.websiteToken, first.visitor_token, { method: 'POST', path: '/messages', payload: { text: 'hello' } });
    const conv = await waitForConversation(t.app, staff, chatOf(first.visitor_token));
    const before = await connectVisitor(baseUrl, { website_token: site.websiteToken, token: first.visitor_token });
    sockets.push(before.socket);
    const closed = new Promise<string>((resolve) => before.socket.once('disconnect', resolve));
    const resumed = await startSession(t.app, site.websiteToken, { visitor_token: first.visitor_token });
    expect(resumed.statusCode).toBe(200);
    const second = resumed.json<{ visitor_token: string; conversation_id: number; visitor: { id: number } }>();
    expect(second).toMatchObject({ conversation_id: conv.id, visitor: { id: first.visitor.id } });
    expect(second.visitor_token).not.toBe(first.visitor_token);
    const old = await visitorRequest(t.app, site.websiteToken, first.visitor_token, { method: 'GET', path: '/messages' });
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ code: 'visitor_token_revoked' });
    expect((await startSession(t.app, site.websiteToken, { visitor_token: first.visitor_token })).statusCode).toBe(401);
    const now = await visitorRequest(t.app, site.websiteToken, second.visitor_token, { method: 'GET', path: '/messages' });
    expect(now.json()).toMatchObject({ conversation_id: conv.id, data: [{ text: 'hello' }] });
    // The socket of the replaced token was closed by the service; the new token's socket hears the agent.
    expect(await closed).toBe('io server disconnect');
    const after = await connectVisitor(baseUrl, { website_token: site.websiteToken, token: second.visitor_token });
    sockets.push(after.socket);
    const reply = await t.app.inject({
      method: 'POST',
      url: `/interactions/conversations/${conv.id}/messages/text`,
      headers: bearer(staff),
      payload: { body: 'still here' },
    });
    expect(reply.statusCode).toBe(202);
    await waitFor(() => after.events.find((e) => e.name === 'widget.message'));
    expect(before.events.filter((e) => e.name === 'widget.message')).toEqual([]);
  });

  it('attaches an image through the media module (presigned upload, ticket) and refuses another visitor’s upload', async () => {
    const a = await newVisitor(t.app, site.websiteToken);
    const b = await newVisitor(t.app, site.websiteToken);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    // Over the network: the embedded store signs URLs of the address the request reached.
    const presign = await fetch(`${baseUrl}/api/widget/${site.websiteToken}/uploads`, {
      method: 'POST',
      headers: { origin: SITE, authorization: `Bearer ${a.visitor_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ file_name: 'photo.png', content_type: 'image/png', size: png.length }),
    });
    expect(presign.status).toBe(200);
    expect(presign.headers.get('access-control-allow-origin')).toBe(SITE);
    const up = (await presign.json()) as { media_id: number; upload_ticket: string; upload: { url: string; method: string; headers: Record<string, string> } };
    const put = await fetch(up.upload.url, { method: up.upload.method, headers: up.upload.headers, body: png });
    expect(put.ok).toBe(true);
    const stolen = await visitorRequest(t.app, site.websiteToken, b.visitor_token, {
      method: 'POST',
      path: '/messages',
      payload: { attachment: { media_id: up.media_id, upload_ticket: up.upload_ticket } },
    });
    expect(stolen.statusCode).toBe(400);
    const sent = await visitorRequest(t.app, site.websiteToken, a.visitor_token, {
      method: 'POST',
      path: '/messages',
      payload: { attachment: { media_id: up.media_id, upload_ticket: up.upload_ticket } },
    });
    expect(sent.statusCode).toBe(202);
    await waitForConversation(t.app, staff, chatOf(a.visitor_token));
    // Until processed the image has no link yet (the history says `media: null`).
    await t.app.media.jobs.idle();
    const history = await visitorRequest(t.app, site.websiteToken, a.visitor_token, { method: 'GET', path: '/messages' });
    expect(history.json()).toMatchObject({ data: [{ author: 'visitor', type: 'image', media: { kind: 'image', url: expect.any(String) } }] });
    const tooBig = await visitorRequest(t.app, site.websiteToken, a.visitor_token, {
      method: 'POST',
      path: '/uploads',
      payload: { file_name: 'huge.png', content_type: 'image/png', size: 50 * 1024 * 1024 },
    });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json()).toMatchObject({ code: 'media_too_large' });
  });

  it('refuses a text over the size limit and web events on the communications webhook', async () => {
    const v = await newVisitor(t.app, site.websiteToken);
    const long = await visitorRequest(t.app, site.websiteToken, v.visitor_token, { method: 'POST', path: '/messages', payload: { text: 'x'.repeat(4001) } });
    expect(long.statusCode).toBe(400);
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: {
        format: 'canonical',
        events: [
          {
            kind: 'message',
            platform: 'web',
            account_id: site.websiteToken,
            external_chat_id: chatOf(v.visitor_token),
            direction: 'inbound',
            message_id: 'forged-1',
            occurred_at: new Date().toISOString(),
            sender: { id: 'x', name: null, phone: null },
            message: { type: 'text', text: 'forged', content: {}, reply_to: null, media_id: null },
          },
        ],
      },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({ code: 'malformed_payload' });
  });
});

describe('the widget script and its demo page', () => {
  it('serves /widget.js to any site (cross-origin resource policy, ETag) and the demo page with no inline script', async () => {
    const js = await t.app.inject({ method: 'GET', url: '/widget.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(js.body).toContain('/api/widget/');
    const again = await t.app.inject({ method: 'GET', url: '/widget.js', headers: { 'if-none-match': String(js.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const demo = await t.app.inject({ method: 'GET', url: `/widget/demo?website_token=${site.websiteToken}` });
    expect(demo.statusCode).toBe(200);
    expect(demo.body).toContain(`<script src="/widget.js" data-website-token="${site.websiteToken}" async></script>`);
    expect(demo.body).not.toMatch(/<script>/);
    expect(demo.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await t.app.inject({ method: 'GET', url: '/widget/demo?website_token=wt_unknown' })).statusCode).toBe(404);
  });
});
