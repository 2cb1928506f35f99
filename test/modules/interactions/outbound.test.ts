/**
 * Sending through the API against the communications simulator over real HTTP: every outbound example of
 * Meta's reference reproduced exactly, replies and reactions by our ids, the service window, channel
 * limits, failures, retries and delivery statuses posted back by the simulator.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { connectSocket, listen, waitFor } from '../../helpers/interactions.js';
import { fixture } from '../../helpers/platform-payloads.js';
import { hasFfmpeg, pdf, png, wavTone, webmVideo } from '../media/media-files.js';
import { metaMessage, metaStatus, whatsAppMessage, whatsAppStatus, whatsAppTemplateReview } from '../../../sim/communications/payloads.js';
import { mediaBytes, startProviderSimulator, type ProviderSimulator } from '../../../sim/communications/provider.js';

type Row = Record<string, unknown>;
const API_KEY = 'sim-key-0123456789';
const PHONE = '16505551234';
let t: TestContext;
let sim: ProviderSimulator;
let baseUrl: string;
let token: string;
let otherToken: string;
let conversationId: number;
let messengerConversationId: number;
let instagramConversationId: number;
let staleConversationId: number;

const webhook = async (payload: unknown) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: payload as object });
  expect(res.statusCode).toBe(200);
  await t.app.interactionsWorker.idle();
};
const post = (url: string, payload: object, tk = token) => t.app.inject({ method: 'POST', url, headers: bearer(tk), payload });
const sendKind = (kind: string, payload: object, id = conversationId) => post(`/api/interactions/conversations/${id}/messages/${kind}`, payload);
const conversationOf = async (chat: string) => {
  const res = await t.app.inject({ method: 'GET', url: `/interactions/conversations?q=${chat}`, headers: bearer(token) });
  return (res.json().data as Row[]).find((c) => c.external_chat_id === chat)!;
};
const history = async (id = conversationId) =>
  (await t.app.inject({ method: 'GET', url: `/interactions/conversations/${id}/history?limit=200`, headers: bearer(token) })).json().data as Row[];
const messageOf = async (id: number, conv = conversationId) => (await history(conv)).find((m) => m.id === id)!;
const ourIdOf = async (externalId: string) => (await history()).find((m) => m.external_message_id === externalId)!.id as number;

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: API_KEY });
  // A short client timeout: the "accepted, answer lost" case times out quickly and is retried.
  t = await createTestApp({ env: { COMMUNICATIONS_BASE_URL: sim.url, COMMUNICATIONS_API_KEY: API_KEY, COMMUNICATIONS_TIMEOUT_MS: '1500' }, startQueue: true });
  baseUrl = await listen(t.app);
  sim.setWebhookTarget(baseUrl);
  const e1 = (await makeEntity(t.database.db, 'One')).id;
  const e2 = (await makeEntity(t.database.db, 'Two')).id;
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PN-OUT' });
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'PAGE-OUT', channelTypeCode: 'social_messenger' });
  await makeChannelAccount(t.database.db, { entityId: e1, externalAccountId: 'IG-OUT', channelTypeCode: 'social_dm' });
  token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes: ['entity_channel_accounts.edit'] }));
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2 }));
  const now = Math.floor(Date.now() / 1000);
  // The customer's messages the examples reply and react to, with Meta's ids.
  await webhook(
    whatsAppMessage(
      { phoneNumberId: 'PN-OUT' },
      { from: PHONE, text: 'thanks!', id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgASGBQzQTdCNTg5RjY1MEMyRjlGMjRGNgA=', timestamp: now - 60 },
    ),
  );
  await webhook(
    whatsAppMessage(
      { phoneNumberId: 'PN-OUT' },
      { from: PHONE, text: 'look', id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgASGBQzQUZCMTY0MDc2MUYwNzBDNTY5MAA=', timestamp: now - 30 },
    ),
  );
  await webhook(whatsAppMessage({ phoneNumberId: 'PN-OUT' }, { from: '50255510000', text: 'old', timestamp: now - 25 * 3600 }));
  await webhook(metaMessage('page', 'PAGE-OUT', { from: 'PSID-77', text: 'hola', timestamp: Date.now() - 1000 }));
  await webhook(metaMessage('instagram', 'IG-OUT', { from: 'IGSID-88', text: 'hola', timestamp: Date.now() - 1000 }));
  conversationId = (await conversationOf(PHONE)).id as number;
  staleConversationId = (await conversationOf('50255510000')).id as number;
  messengerConversationId = (await conversationOf('PSID-77')).id as number;
  instagramConversationId = (await conversationOf('IGSID-88')).id as number;
  sim.setTemplateReview('APPROVED');
  for (const template of [WELCOME, FOLLOW_UP]) expect((await post('/interactions/templates', template)).statusCode).toBe(201);
  sim.setTemplateReview('PENDING');
});

/** The template of Meta's named-parameter example, and a plain one. */
const WELCOME = {
  name: 'welcome_discount_template',
  language: 'en_US',
  category: 'marketing',
  parameter_format: 'named',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2UvanBlZw==:ARb'] } },
    {
      type: 'BODY',
      text: 'Hi {{first_name}}! Use {{discount_code}} for {{discount_amount}} off.',
      example: {
        body_text_named_params: [
          { param_name: 'first_name', example: 'Pablo' },
          { param_name: 'discount_code', example: 'WELCOME25' },
          { param_name: 'discount_amount', example: '25%' },
        ],
      },
    },
  ],
};
const FOLLOW_UP = {
  name: 'follow_up',
  language: 'es',
  category: 'utility',
  components: [{ type: 'BODY', text: 'Hola {{1}}, ¿seguimos con su pedido?', example: { body_text: [['Ana']] } }],
};
afterAll(async () => {
  await t?.close();
  await sim?.close();
});
beforeEach(() => sim.reset());

/** The body of each example as our API takes it. */
const requests: Record<string, () => Promise<{ kind: string; body: object }>> = {
  'audio_voice.json': async () => ({ kind: 'audio', body: { id: '1013859600285441', voice: true } }),
  'contacts.json': async () => ({ kind: 'contacts', body: { contacts: fixture('whatsapp-outbound/contacts.json').contacts } }),
  'document_filename_caption.json': async () => ({
    kind: 'document',
    body: { id: '1376223850470843', filename: 'order_abc123.pdf', caption: 'Your order confirmation (PDF)' },
  }),
  'image_by_id_caption.json': async () => ({ kind: 'image', body: { id: '1479537139650973', caption: 'The best succulent ever?' } }),
  'interactive_button_image_header.json': async () => ({
    kind: 'interactive/button',
    body: strip(fixture('whatsapp-outbound/interactive_button_image_header.json').interactive),
  }),
  'interactive_cta_url_image_header.json': async () => ({
    kind: 'interactive/cta-url-image',
    body: strip(fixture('whatsapp-outbound/interactive_cta_url_image_header.json').interactive),
  }),
  'interactive_list.json': async () => ({ kind: 'interactive/list', body: strip(fixture('whatsapp-outbound/interactive_list.json').interactive) }),
  'location.json': async () => ({ kind: 'location', body: fixture('whatsapp-outbound/location.json').location }),
  'reaction.json': async () => ({
    kind: 'reaction',
    body: { message_id: await ourIdOf('wamid.HBgLMTY0NjcwNDM1OTUVAgASGBQzQUZCMTY0MDc2MUYwNzBDNTY5MAA='), emoji: '😀' },
  }),
  'reply_with_context.json': async () => ({
    kind: 'text',
    body: { body: "You're welcome, Pablo!", reply_to_message_id: await ourIdOf('wamid.HBgLMTY0NjcwNDM1OTUVAgASGBQzQTdCNTg5RjY1MEMyRjlGMjRGNgA=') },
  }),
  'sticker.json': async () => ({ kind: 'sticker', body: { id: '798882015472548' } }),
  'template_header_image_named_params.json': async () => ({
    kind: 'template',
    body: fixture('whatsapp-outbound/template_header_image_named_params.json').template,
  }),
  'text_preview_url.json': async () => ({ kind: 'text', body: fixture('whatsapp-outbound/text_preview_url.json').text }),
  'video.json': async () => ({ kind: 'video', body: { id: '1166846181421424', caption: 'A succulent eclipse!' } }),
};
function strip(interactive: Row): Row {
  const { type: _type, ...rest } = interactive;
  return rest;
}

describe('sending every kind', () => {
  it.each(Object.keys(requests))('reproduces %s exactly at the communications service', async (file) => {
    const { kind, body } = await requests[file]!();
    const res = await sendKind(kind, body);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ status: 'pending', direction: 'outbound', conversation_id: conversationId });
    const [delivered] = await sim.waitForDeliveries(1);
    const expected = fixture(`whatsapp-outbound/${file}`);
    // Meta's template example addresses the bare wa_id; we always send E.164 (docs/decisions.md, "Recipient of WhatsApp sends").
    if (file.startsWith('template_')) expected.to = `+${PHONE}`;
    expect(delivered!.body).toEqual(expected);
    expect(delivered!.platform).toBe('whatsapp');
    expect(delivered!.accountId).toBe('PN-OUT');
    expect(delivered!.apiKey).toBe(API_KEY);
  });

  it("sends a call-to-action URL without a header as Meta's cta_url message", async () => {
    const res = await sendKind('interactive/cta-url', {
      body: { text: 'Tap the button below to see available dates.' },
      footer: { text: 'Dates subject to change.' },
      action: {
        name: 'cta_url',
        parameters: { display_text: 'See Dates', url: 'https://www.luckyshrub.com?clickID=kqDGWd24Q5TRwoEQTICY7W1JKoXvaZOXWAS7h1P76s0R7Paec4' },
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ status: 'pending', type: 'interactive', text: 'Tap the button below to see available dates.' });
    const [delivered] = await sim.waitForDeliveries(1);
    // Meta's example with an image header, without the (optional) header.
    const expected = fixture('whatsapp-outbound/interactive_cta_url_image_header.json');
    delete expected.interactive.header;
    expect(delivered!.body).toEqual(expected);
  });

  /** Meta's media examples sent by `link` instead of by `id`: the same message with the link in the media object. */
  it.each([
    ['image', 'image_by_id_caption.json', { link: 'https://www.luckyshrub.com/assets/succulents/aloe.png', caption: 'The best succulent ever?' }],
    [
      'document',
      'document_filename_caption.json',
      {
        link: 'https://www.luckyshrub.com/invoices/FmOzfD9cKf/lucky-shrub-invoice.pdf',
        filename: 'order_abc123.pdf',
        caption: 'Your order confirmation (PDF)',
      },
    ],
    ['video', 'video.json', { link: 'https://www.luckyshrub.com/media/ringing-bell.mp4', caption: 'A succulent eclipse!' }],
    ['audio', 'audio_voice.json', { link: 'https://www.luckyshrub.com/media/ringing-bell.ogg' }],
    ['sticker', 'sticker.json', { link: 'https://www.luckyshrub.com/assets/stickers/shrub.webp' }],
  ])('sends %s by link in JSON with exactly the link and fields given', async (kind, file, media) => {
    const res = await sendKind(kind, media);
    expect(res.statusCode, res.body).toBe(202);
    const [delivered] = await sim.waitForDeliveries(1);
    expect(delivered!.body).toEqual({ ...fixture(`whatsapp-outbound/${file}`), [kind]: media });
  });

  it('refuses media naming more than one source, sending nothing', async () => {
    const res = await sendKind('image', { id: '1479537139650973', link: 'https://www.luckyshrub.com/assets/succulents/aloe.png' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: '/body', message: 'give exactly one of id, link or media_id' }] });
    expect(sim.calls).toHaveLength(0);
  });

  it('moves a sent message to sent, delivered and read from the platform statuses, on the API and the socket', async () => {
    const { socket, events } = await connectSocket(baseUrl, { token });
    try {
      const res = await sendKind('text', { body: 'status check' });
      const id = res.json().id as number;
      const m = await waitFor(async () => {
        const row = await messageOf(id);
        return row.status === 'read' ? row : undefined;
      });
      expect(m.external_message_id).toMatch(/^wamid\.SIM/);
      expect(m.sent_at).not.toBeNull();
      expect(m.delivered_at).not.toBeNull();
      await waitFor(() => events.some((e) => e.name === 'interaction.message.status' && e.payload.message_id === id && e.payload.status === 'read'));
      expect(events.some((e) => e.name === 'interaction.message.created' && e.payload.message.id === id)).toBe(true);
    } finally {
      socket.disconnect();
    }
  });

  it("announces nothing for a status that changes nothing: the platform's `sent` after its answer was recorded", async () => {
    const { socket, events } = await connectSocket(baseUrl, { token });
    sim.setWebhookTarget(null); // this test posts the platform's statuses itself, after the answer is recorded
    try {
      const id = (await sendKind('text', { body: 'sent twice' })).json().id as number;
      const sent = await waitFor(async () => {
        const row = await messageOf(id);
        return row.status === 'sent' ? row : undefined;
      });
      const wamid = sent.external_message_id as string;
      await webhook(whatsAppStatus({ phoneNumberId: 'PN-OUT' }, { messageId: wamid, recipient: PHONE, status: 'sent' }));
      await webhook(whatsAppStatus({ phoneNumberId: 'PN-OUT' }, { messageId: wamid, recipient: PHONE, status: 'delivered' }));
      await waitFor(() => events.some((e) => e.name === 'interaction.message.status' && e.payload.message_id === id && e.payload.status === 'delivered'));
      const steps = events.filter((e) => e.name === 'interaction.message.status' && e.payload.message_id === id).map((e) => e.payload.status);
      expect(steps).toEqual(['sent', 'delivered']);
      expect(await messageOf(id)).toMatchObject({ status: 'delivered', sent_at: sent.sent_at });
    } finally {
      sim.setWebhookTarget(baseUrl);
      socket.disconnect();
    }
  });

  it("reports the send latency by platform and this instance's connected sockets on /metrics", async () => {
    const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const sentSoFar = Number(/^interactions_send_latency_seconds_count\{platform="whatsapp"\} (\d+)$/m.exec(await metrics())?.[1] ?? 0);
    expect((await sendKind('text', { body: 'measured' })).statusCode).toBe(202);
    await waitFor(async () =>
      /^interactions_send_latency_seconds_count\{platform="whatsapp"\} (\d+)$/m.exec(await metrics())?.[1] === String(sentSoFar + 1) ? true : undefined,
    );
    expect(await metrics()).toMatch(/^interactions_send_latency_seconds_bucket\{le="\+Inf",platform="whatsapp"\} \d+$/m);

    expect(await metrics()).toMatch(/^realtime_connected_sockets 0$/m);
    const { socket } = await connectSocket(baseUrl, { token });
    try {
      expect(await metrics()).toMatch(/^realtime_connected_sockets 1$/m);
    } finally {
      socket.disconnect();
    }
    await waitFor(async () => (/^realtime_connected_sockets 0$/m.test(await metrics()) ? true : undefined));
  });

  it('answers a send repeated with the same Idempotency-Key with the first message, sending once', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/interactions/conversations/${conversationId}/messages/text`,
        headers: { ...bearer(token), 'idempotency-key': 'agent-retry-1' },
        payload: { body: 'una sola vez' },
      });
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.statusCode, second.statusCode]).toEqual([202, 202]);
    expect(second.json().id).toBe(first.json().id);
    expect((await send()).json().id).toBe(first.json().id);
    await sim.waitForDeliveries(1);
    // Once the platform's answer is recorded (sent or later), the message is never sent again.
    await waitFor(async () => ['sent', 'delivered', 'read'].includes((await history()).find((m) => m.text === 'una sola vez')?.status as string) || undefined);
    expect(sim.deliveries.filter((d) => (d.body.text as { body?: string } | undefined)?.body === 'una sola vez')).toHaveLength(1);
    expect((await history()).filter((m) => m.text === 'una sola vez')).toHaveLength(1);
  });

  it("answers 404 for another entity's conversation and stores nothing", async () => {
    const res = await post(`/interactions/conversations/${conversationId}/messages/text`, { body: 'hi' }, otherToken);
    expect(res.statusCode).toBe(404);
    expect(sim.calls).toHaveLength(0);
  });

  it('refuses a reply to a message of another conversation', async () => {
    const foreign = (await history(staleConversationId))[0]!.id as number;
    const res = await sendKind('text', { body: 'x', reply_to_message_id: foreign });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('/body/reply_to_message_id');
  });
});

describe('media sent as multipart', () => {
  it("stores the file as a media object, waits for its processing and sends it as a link with the form's caption", async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 200, g: 10, b: 10 } } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('caption', 'Nuestro catálogo');
    form.append('file', new Blob([png], { type: 'image/png' }), 'catalogo.png');
    const res = await fetch(`${baseUrl}/api/interactions/conversations/${conversationId}/messages/image`, {
      method: 'POST',
      headers: bearer(token),
      body: form,
    });
    expect(res.status).toBe(202);
    const message = (await res.json()) as Row;
    const [delivered] = await sim.waitForDeliveries(1, 15_000);
    const image = delivered!.body.image as { link: string; caption: string };
    expect(image.caption).toBe('Nuestro catálogo');
    expect(image.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const bytes = Buffer.from(await (await fetch(image.link)).arrayBuffer());
    expect((await sharp(bytes).metadata()).width).toBe(32);
    expect((message.content as { media_object_id: number }).media_object_id).toEqual(expect.any(Number));
  });

  const sendForm = (kind: string, parts: [string, string | [Buffer, string, string]][]) => {
    const form = new FormData();
    for (const [name, value] of parts) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([value[0]], { type: value[1] }), value[2]);
    }
    return fetch(`${baseUrl}/api/interactions/conversations/${conversationId}/messages/${kind}`, { method: 'POST', headers: bearer(token), body: form });
  };

  it('keeps the form fields that follow the file: image, video and document', async () => {
    const video = hasFfmpeg
      ? await webmVideo(1)
      : Buffer.concat([Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex'), Buffer.alloc(64)]);
    const cases: [string, [Buffer, string, string], [string, string][], Record<string, string>][] = [
      ['image', [await png(16, 16), 'image/png', 'a.png'], [['caption', 'Mira']], { caption: 'Mira' }],
      ['video', [video, hasFfmpeg ? 'video/webm' : 'video/mp4', hasFfmpeg ? 'clip.webm' : 'clip.mp4'], [['caption', 'El video']], { caption: 'El video' }],
      [
        'document',
        [pdf(), 'application/pdf', 'upload.pdf'],
        [
          ['caption', 'La factura'],
          ['filename', 'factura.pdf'],
        ],
        { caption: 'La factura', filename: 'factura.pdf' },
      ],
    ];
    for (const [kind, file, after, expected] of cases) {
      sim.reset();
      const res = await sendForm(kind, [['file', file], ...after]);
      expect({ kind, status: res.status }).toEqual({ kind, status: 202 });
      const [delivered] = await sim.waitForDeliveries(1, 30_000);
      expect(delivered!.body[kind]).toMatchObject(expected);
    }
  });

  it('sends audio as a voice note when `voice` precedes the file, and refuses `voice` after it with a clear 400', async () => {
    const wav = await wavTone(1);
    const late = await sendForm('audio', [
      ['file', [wav, 'audio/wav', 'tone.wav']],
      ['voice', 'true'],
    ]);
    expect(late.status).toBe(400);
    expect(((await late.json()) as { errors: { field: string; message: string }[] }).errors).toEqual([
      { field: '/body/voice', message: '`voice` must come before `file` in the form' },
    ]);
    const res = await sendForm('audio', [
      ['voice', 'true'],
      ['file', [wav, 'audio/wav', 'tone.wav']],
    ]);
    expect(res.status).toBe(202);
    const [delivered] = await sim.waitForDeliveries(1, 30_000);
    expect(delivered!.body.audio).toMatchObject({ link: expect.stringMatching(/^http:/) });
  });

  it('refuses a field after the file that breaks the schema, as it refuses one before it', async () => {
    const res = await sendForm('image', [
      ['file', [await png(8, 8), 'image/png', 'a.png']],
      ['caption', 'x'.repeat(2000)],
    ]);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { field: string }[] }).errors.map((e) => e.field)).toContain('/body/caption');
    expect(sim.calls).toHaveLength(0);
  });

  it('refuses unknown form fields, sending nothing', async () => {
    const form = new FormData();
    form.append('colour', 'red');
    form.append('file', new Blob([Buffer.alloc(64)], { type: 'image/png' }), 'x.png');
    const res = await fetch(`${baseUrl}/api/interactions/conversations/${conversationId}/messages/image`, {
      method: 'POST',
      headers: bearer(token),
      body: form,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Row).code).toBe('validation_failed');
    expect(sim.calls).toHaveLength(0);
  });
});

describe('the service window', () => {
  it("refuses free-form messages 24 h after the customer's last message, with the time it closed, and allows templates", async () => {
    const conv = (await t.app.inject({ method: 'GET', url: `/interactions/conversations/${staleConversationId}`, headers: bearer(token) })).json();
    expect(Date.parse(conv.service_window_expires_at)).toBeLessThan(Date.now());
    const res = await sendKind('text', { body: 'late' }, staleConversationId);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'outside_service_window', closed_at: conv.service_window_expires_at });
    const template = await sendKind(
      'template',
      { name: 'follow_up', language: { code: 'es' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }] },
      staleConversationId,
    );
    expect(template.statusCode).toBe(202);
    await sim.waitForDeliveries(1);
  });

  it('exposes the open window on the conversation', async () => {
    const conv = (await t.app.inject({ method: 'GET', url: `/interactions/conversations/${conversationId}`, headers: bearer(token) })).json();
    expect(Date.parse(conv.service_window_expires_at)).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });
});

describe('templates', () => {
  it('forward a date_time parameter with its calendar fields unchanged', async () => {
    const created = await post('/interactions/templates', {
      name: 'appointment_at',
      language: 'es',
      category: 'utility',
      components: [{ type: 'BODY', text: 'Su cita es {{1}}', example: { body_text: [['lunes']] } }],
    });
    expect(created.statusCode).toBe(201);
    sim.templates.get(created.json().provider_template_id as string)!.status = 'APPROVED';
    await t.app.inject({ method: 'GET', url: '/interactions/templates?sync=true', headers: bearer(token) });
    const dateTime = {
      fallback_value: 'lunes 3 de marzo, 10:30',
      calendar: 'GREGORIAN',
      year: 2026,
      month: 3,
      day_of_month: 2,
      day_of_week: 1,
      hour: 10,
      minute: 30,
    };
    const res = await sendKind('template', {
      name: 'appointment_at',
      language: { code: 'es' },
      components: [{ type: 'body', parameters: [{ type: 'date_time', date_time: dateTime }] }],
    });
    expect(res.statusCode).toBe(202);
    const [delivered] = await sim.waitForDeliveries(1);
    const template = delivered!.body.template as { components: { parameters: unknown[] }[] };
    expect(template.components[0]!.parameters).toEqual([{ type: 'date_time', date_time: dateTime }]);
    const bad = await sendKind('template', {
      name: 'appointment_at',
      language: { code: 'es' },
      components: [{ type: 'body', parameters: [{ type: 'date_time', date_time: { ...dateTime, month: 13 } }] }],
    });
    expect(bad.statusCode).toBe(400);
  });

  it('are created for review, synced from the communications service, and only approved ones are sent', async () => {
    const created = await post('/interactions/templates', {
      name: 'order_ready',
      language: 'es',
      category: 'utility',
      components: [{ type: 'BODY', text: 'Su pedido {{1}} está listo', example: { body_text: [['A-1']] } }],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ status: 'pending', provider_template_id: expect.any(String) });
    const send = () =>
      sendKind('template', { name: 'order_ready', language: { code: 'es' }, components: [{ type: 'body', parameters: [{ type: 'text', text: 'A-7' }] }] });
    expect((await send()).json()).toMatchObject({ status: 422, code: 'template_not_approved' });
    sim.templates.get(created.json().provider_template_id as string)!.status = 'APPROVED';
    const listed = await t.app.inject({ method: 'GET', url: '/interactions/templates?sync=true', headers: bearer(token) });
    expect(listed.json().data.find((x: Row) => x.name === 'order_ready').status).toBe('approved');
    expect((await send()).statusCode).toBe(202);
    await sim.waitForDeliveries(1); // before the next test resets the simulator
    expect(
      (await post('/interactions/templates', { name: 'order_ready', language: 'es', category: 'utility', components: [{ type: 'BODY', text: 'x' }] })).json()
        .code,
    ).toBe('already_exists');
    // A change is reviewed again at the platform: pending until the sync sees it approved.
    const changed = await t.app.inject({
      method: 'PATCH',
      url: `/interactions/templates/${created.json().id}`,
      headers: bearer(token),
      payload: { components: [{ type: 'BODY', text: 'Pedido {{1}} listo para recoger', example: { body_text: [['A-1']] } }] },
    });
    expect(changed.json()).toMatchObject({ status: 'pending' });
    expect(sim.templates.get(created.json().provider_template_id as string)).toMatchObject({ status: 'PENDING' });
    expect((await send()).json().code).toBe('template_not_approved');
  });

  it("follow the platform's review through the template-status webhook, changing only the template reviewed", async () => {
    const thirdToken = await tokenFor(
      t.app,
      await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db, 'Reviewed elsewhere')).id, codes: ['entity_channel_accounts.edit'] }),
    );
    const define = (name: string) => ({
      name,
      language: 'es',
      category: 'marketing',
      components: [{ type: 'BODY', text: 'Oferta {{1}}', example: { body_text: [['10%']] } }],
    });
    const mine = (await post('/interactions/templates', define('weekly_offer'))).json();
    const theirs = (await post('/interactions/templates', define('their_offer'), thirdToken)).json();
    expect([mine.status, theirs.status]).toEqual(['pending', 'pending']);
    expect(theirs.provider_template_id).not.toBe(mine.provider_template_id);
    const statusOf = async (id: number, tk = token) =>
      ((await t.app.inject({ method: 'GET', url: '/interactions/templates', headers: bearer(tk) })).json().data as Row[]).find((x) => x.id === id)!;

    expect(await sim.reviewTemplate(mine.provider_template_id as string, 'APPROVED')).toBe(200);
    expect(await statusOf(mine.id as number)).toMatchObject({ status: 'approved', rejection_reason: null });
    expect(await statusOf(theirs.id as number, thirdToken)).toMatchObject({ status: 'pending' });
    const send = () =>
      sendKind('template', { name: 'weekly_offer', language: { code: 'es' }, components: [{ type: 'body', parameters: [{ type: 'text', text: '15%' }] }] });
    expect((await send()).statusCode).toBe(202);
    await sim.waitForDeliveries(1);

    expect(await sim.reviewTemplate(mine.provider_template_id as string, 'PAUSED')).toBe(200);
    expect((await send()).json()).toMatchObject({ code: 'template_not_approved', status: 422 });
    expect(await sim.reviewTemplate(theirs.provider_template_id as string, 'REJECTED', 'PROMOTIONAL')).toBe(200);
    expect(await statusOf(theirs.id as number, thirdToken)).toMatchObject({ status: 'rejected', rejection_reason: 'PROMOTIONAL' });
    expect(await statusOf(mine.id as number)).toMatchObject({ status: 'paused' });

    // A review of a template this service never submitted is acknowledged and changes nothing.
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: whatsAppTemplateReview({ templateId: '987654321', name: 'elsewhere', language: 'es', event: 'APPROVED' }),
    });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toMatchObject({ received: 1, accepted: 1 });
    const broken = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: {
        object: 'whatsapp_business_account',
        entry: [{ id: '1', changes: [{ field: 'message_template_status_update', value: { event: 'APPROVED' } }] }],
      },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ code: 'malformed_payload', pointer: '/entry/0/changes/0/value/message_template_id' });
  });

  it.each([
    ['too few positional parameters', 'follow_up', 'es', [{ type: 'body', parameters: [] }], 'the body takes 1 parameters, 0 given'],
    [
      'a named parameter missing',
      'welcome_discount_template',
      'en_US',
      [
        { type: 'header', parameters: [{ type: 'image', image: { id: '1' } }] },
        { type: 'body', parameters: [{ type: 'text', parameter_name: 'first_name', text: 'A' }] },
      ],
      'missing parameter discount_code',
    ],
    [
      'a header of the wrong media type',
      'welcome_discount_template',
      'en_US',
      [{ type: 'header', parameters: [{ type: 'video', video: { id: '1' } }] }],
      'must be a image with id or link',
    ],
    [
      'a component the template lacks',
      'follow_up',
      'es',
      [
        { type: 'body', parameters: [{ type: 'text', text: 'A' }] },
        { type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'x' }] },
      ],
      'the template has no such component',
    ],
  ])('refuses %s before anything is queued', async (_case, name, language, components, message) => {
    const res = await sendKind('template', { name, language: { code: language }, components });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('invalid_template_parameters');
    expect(res.json().errors.map((e: Row) => e.message)).toContain(message);
    expect(sim.calls).toHaveLength(0);
  });

  it("refuses an unknown template and a definition whose placeholders have no examples, and hides other entities' templates", async () => {
    expect((await sendKind('template', { name: 'nope', language: { code: 'es' } })).json().code).toBe('template_not_found');
    const bad = await post('/interactions/templates', {
      name: 'no_examples',
      language: 'es',
      category: 'utility',
      components: [{ type: 'BODY', text: 'Hola {{1}}' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('/body/components/0/example/body_text');
    const other = await tokenFor(
      t.app,
      await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db, 'Three')).id, codes: ['entity_channel_accounts.edit'] }),
    );
    const list = await t.app.inject({ method: 'GET', url: '/interactions/templates', headers: bearer(other) });
    expect(list.json().data).toEqual([]);
    const mine = (await t.app.inject({ method: 'GET', url: '/interactions/templates', headers: bearer(token) })).json().data[0].id;
    expect((await t.app.inject({ method: 'DELETE', url: `/interactions/templates/${mine}`, headers: bearer(other) })).statusCode).toBe(404);
  });
});

describe('Messenger', () => {
  it('sends text in the Send API shape and refuses what Messenger cannot carry', async () => {
    const res = await sendKind('text', { body: 'hola desde el CRM' }, messengerConversationId);
    expect(res.statusCode).toBe(202);
    const [d] = await sim.waitForDeliveries(1);
    expect(d!.platform).toBe('messenger');
    expect(d!.body).toEqual({ recipient: { id: 'PSID-77' }, messaging_type: 'RESPONSE', message: { text: 'hola desde el CRM' } });
    const list = await sendKind('interactive/list', strip(fixture('whatsapp-outbound/interactive_list.json').interactive), messengerConversationId);
    expect(list.statusCode).toBe(422);
    expect(list.json().code).toBe('unsupported_message_type');
  });

  it('sends media by link as a reusable attachment (a document as a file) and refuses a WhatsApp media id', async () => {
    const link = 'https://www.luckyshrub.com/invoices/FmOzfD9cKf/lucky-shrub-invoice.pdf';
    expect((await sendKind('document', { link, filename: 'invoice.pdf' }, messengerConversationId)).statusCode).toBe(202);
    const [d] = await sim.waitForDeliveries(1);
    expect(d).toMatchObject({ platform: 'messenger', accountId: 'PAGE-OUT' });
    expect(d!.body).toEqual({
      recipient: { id: 'PSID-77' },
      messaging_type: 'RESPONSE',
      message: { attachment: { type: 'file', payload: { url: link, is_reusable: true } } },
    });
    const byId = await sendKind('image', { id: '1479537139650973' }, messengerConversationId);
    expect(byId.statusCode).toBe(422);
    expect(byId.json().code).toBe('unsupported_media_source');
    expect(sim.calls).toHaveLength(1);
  });

  it('is still sent when a read watermark arrives while it waits for a retry: only messages the platform accepted are read', async () => {
    // Two refusals keep it pending for seconds (retry-after, then backoff): the watermark lands meanwhile.
    sim.failNext('rate_limit', 2);
    const res = await sendKind('text', { body: 'después del límite' }, messengerConversationId);
    expect(res.statusCode).toBe(202);
    await waitFor(() => (sim.calls.some((c) => c.outcome === '130429') ? true : undefined), 10_000);
    // The customer's page reports everything up to now as read while the message waits for its retry.
    await webhook(metaStatus('page', 'PAGE-OUT', { from: 'PSID-77', kind: 'read', watermark: Date.now() }));
    expect((await messageOf(res.json().id as number, messengerConversationId)).status).toBe('pending');
    const [d] = await sim.waitForDeliveries(1, 15_000);
    expect(d!.body).toMatchObject({ recipient: { id: 'PSID-77' }, message: { text: 'después del límite' } });
  });
});

describe('Instagram', () => {
  it('sends text in the Send API shape to the IGSID', async () => {
    expect((await sendKind('text', { body: 'hola desde Instagram' }, instagramConversationId)).statusCode).toBe(202);
    const [d] = await sim.waitForDeliveries(1);
    expect(d).toMatchObject({ platform: 'instagram', accountId: 'IG-OUT' });
    expect(d!.body).toEqual({ recipient: { id: 'IGSID-88' }, messaging_type: 'RESPONSE', message: { text: 'hola desde Instagram' } });
  });

  it('sends an image by link as a reusable image attachment', async () => {
    const link = 'https://www.luckyshrub.com/assets/succulents/aloe.png';
    const res = await sendKind('image', { link, caption: 'Aloe' }, instagramConversationId);
    expect(res.statusCode).toBe(202);
    // The Send API's attachment has no caption: it is kept on the stored message only.
    expect(res.json()).toMatchObject({ type: 'image', text: 'Aloe' });
    const [d] = await sim.waitForDeliveries(1);
    expect(d).toMatchObject({ platform: 'instagram', accountId: 'IG-OUT' });
    expect(d!.body).toEqual({
      recipient: { id: 'IGSID-88' },
      messaging_type: 'RESPONSE',
      message: { attachment: { type: 'image', payload: { url: link, is_reusable: true } } },
    });
  });
});

describe('failures and retries', () => {
  it('retries a rate-limited send and delivers it once', async () => {
    sim.failNext('rate_limit', 1);
    const res = await sendKind('text', { body: 'busy hour' });
    const id = res.json().id as number;
    const m = await waitFor(async () => {
      const row = await messageOf(id);
      return row.status !== 'pending' ? row : undefined;
    }, 15_000);
    expect(m.status).not.toBe('failed');
    expect(sim.calls.filter((c) => c.body.type === 'text').map((c) => c.outcome)).toEqual(['130429', expect.stringMatching(/^wamid\./)]);
    expect(sim.deliveries).toHaveLength(1);
  });

  it('leaves a permanently refused message failed with the provider error; one retry sends it once; a second retry is 409', async () => {
    sim.failNext('permanent', 1);
    const id = (await sendKind('text', { body: 'undeliverable' })).json().id as number;
    const failed = await waitFor(async () => {
      const row = await messageOf(id);
      return row.status === 'failed' ? row : undefined;
    });
    expect(failed.errors).toEqual([expect.objectContaining({ code: 131026, kind: 'permanent' })]);
    expect(sim.deliveries).toHaveLength(0);
    const retry = await post(`/interactions/conversations/${conversationId}/messages/${id}/retry`, {});
    expect(retry.statusCode).toBe(202);
    expect(retry.json().status).toBe('pending');
    await sim.waitForDeliveries(1);
    await waitFor(async () => ((await messageOf(id)).status !== 'pending' ? true : undefined));
    const again = await post(`/interactions/conversations/${conversationId}/messages/${id}/retry`, {});
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('message_not_retryable');
    expect(sim.deliveries).toHaveLength(1);
  });

  it('does not deliver twice when the platform accepted but the answer never came (same idempotency key on the retry)', async () => {
    sim.failNext('accept_and_hang', 1);
    const id = (await sendKind('text', { body: 'once only' })).json().id as number;
    const m = await waitFor(async () => {
      const row = await messageOf(id);
      return row.status !== 'pending' ? row : undefined;
    }, 15_000);
    expect(m.status).not.toBe('failed');
    const calls = sim.calls.filter((c) => c.body.type === 'text');
    expect(calls.map((c) => (c.outcome.startsWith('wamid.') ? 'accepted' : c.outcome))).toEqual(['accepted', 'replay']);
    expect(calls[0]!.idempotencyKey).toBe(calls[1]!.idempotencyKey);
    expect(sim.deliveries).toHaveLength(1);
    expect(m.external_message_id).toBe(sim.deliveries[0]!.outcome.split(' ')[0]);
  });
});

describe('media proxy', () => {
  it("streams a message's platform media with type, length and ranges, never to another entity", async () => {
    await webhook(whatsAppMessage({ phoneNumberId: 'PN-OUT' }, { from: PHONE, type: 'image', text: 'photo' }));
    const mediaId = (await history()).find((m) => m.type === 'image' && m.direction === 'inbound')!.media_id as string;
    const url = `/api/interactions/media/${mediaId}`;
    const full = await t.app.inject({ method: 'GET', url, headers: bearer(token) });
    expect(full.statusCode).toBe(200);
    expect(full.rawPayload.equals(mediaBytes(mediaId))).toBe(true);
    expect(full.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': '8192',
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=3600',
    });
    expect(JSON.stringify(full.headers)).not.toContain(API_KEY);
    const part = await t.app.inject({ method: 'GET', url, headers: { ...bearer(token), range: 'bytes=0-7' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 0-7/8192');
    expect(part.rawPayload.equals(mediaBytes(mediaId).subarray(0, 8))).toBe(true);
    expect((await t.app.inject({ method: 'GET', url, headers: { ...bearer(token), range: 'bytes=9000-' } })).statusCode).toBe(416);
    expect((await t.app.inject({ method: 'GET', url, headers: bearer(otherToken) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/interactions/media/999999', headers: bearer(token) })).statusCode).toBe(404);
  });
});

describe('read receipts', () => {
  it('marking a conversation read sends the platform read receipt of its latest inbound message', async () => {
    const res = await post(`/interactions/conversations/${conversationId}/read`, {});
    expect(res.statusCode).toBe(200);
    const latest = (await history()).find((m) => m.direction === 'inbound')!;
    const receipt = await waitFor(() => sim.calls.find((c) => c.body.status === 'read'));
    expect(receipt.body).toEqual({ ...fixture('whatsapp-outbound/mark_as_read.json'), message_id: latest.external_message_id });
  });

  it('on Messenger marks the chat seen (Send API sender action)', async () => {
    expect((await post(`/interactions/conversations/${messengerConversationId}/read`, {})).statusCode).toBe(200);
    const receipt = await waitFor(() => sim.calls.find((c) => c.body.sender_action === 'mark_seen'));
    expect(receipt).toMatchObject({ platform: 'messenger', accountId: 'PAGE-OUT', body: { recipient: { id: 'PSID-77' }, sender_action: 'mark_seen' } });
  });
});
