import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { resetDatabase } from '../../helpers/test-db.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { makeChannelAccount } from '../../helpers/conversation-factories.js';
import { captureEvents, connectSocket, listen, waitFor } from '../../helpers/interactions.js';
import { DEMO_PHONE_NUMBER_ID, fixture, whatsAppExample, whatsAppExamples } from '../../helpers/platform-payloads.js';
import { createCommunicationsSimulator } from '../../../sim/communications/simulator.js';
import { metaMessage, metaReaction, metaStatus, whatsAppMessage, whatsAppStatus } from '../../../sim/communications/payloads.js';
import { queryRows } from '../../../src/db/client.js';
import { recordQueries } from '../../helpers/query-counter.js';

type Row = Record<string, unknown>;
let t: TestContext;
let baseUrl: string;
let sim: ReturnType<typeof createCommunicationsSimulator>;

const count = async (table: string) => (await queryRows<{ n: number }>(t.database.db, sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;
const drain = () => t.app.interactionsWorker.idle();

async function setup() {
  await resetDatabase(t.database);
  const entity = await makeEntity(t.database.db, 'Alpha');
  const other = await makeEntity(t.database.db, 'Beta');
  const account = await makeChannelAccount(t.database.db, { entityId: entity.id, externalAccountId: DEMO_PHONE_NUMBER_ID });
  const member = await makeMember(t.database.db, { entityId: entity.id, codes: ['contacts.view'] });
  return { entity, other, account, member, token: await tokenFor(t.app, member) };
}

beforeAll(async () => {
  t = await createTestApp({ env: { COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS: 'ops@example.com' } });
  baseUrl = await listen(t.app);
  sim = createCommunicationsSimulator({ baseUrl });
});
afterAll(async () => t.close());

describe("Meta's published WhatsApp examples", () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeEach(async () => {
    s = await setup();
  });

  for (const example of whatsAppExamples()) {
    it(`accepts ${example.name} with 200 and projects it`, async () => {
      const res = await sim.send(example.body);
      expect(res.status).toBe(200);
      await drain();
      const value = example.body.entry[0].changes[0].value;
      const inbox = await queryRows<{ state: string; entity_id: number | null }>(t.database.db, sql`select state, entity_id from interaction_webhook_inbox`);
      expect(inbox.length).toBeGreaterThan(0);
      expect(inbox.every((r) => r.state === 'processed' && r.entity_id === s.entity.id)).toBe(true);
      if (value.messages) {
        const m = value.messages[0];
        const rows = await queryRows<{ type: string; direction: string; external_message_id: string; reply_to_external_id: string | null }>(
          t.database.db,
          sql`select type, direction, external_message_id, reply_to_external_id from message`,
        );
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ direction: 'inbound', external_message_id: m.id, type: m.type === 'unknown' ? 'unsupported' : m.type });
        if (m.context?.id && m.type !== 'reaction') expect(rows[0]!.reply_to_external_id).toBe(m.context.id);
        if (m.type === 'reaction') expect(rows[0]!.reply_to_external_id).toBe(m.reaction.message_id);
        const conv = await t.app.inject({ method: 'GET', url: '/interactions/conversations', headers: bearer(s.token) });
        expect(conv.json().data).toHaveLength(1);
        expect(conv.json().data[0]).toMatchObject({ external_chat_id: m.from, unread_count: 1, entity_channel_account_id: s.account.id });
      }
      if (value.statuses) {
        const st = value.statuses[0];
        const rows = await queryRows<{ status: string; direction: string }>(
          t.database.db,
          sql`select status, direction from message where external_message_id = ${st.id}`,
        );
        expect(rows).toEqual([{ status: st.status, direction: 'outbound' }]);
      }
    });
  }

  it('projects an image with its caption and media id and a text, with the sender as contact channel and name', async () => {
    await sim.send(whatsAppExample('image_with_caption'));
    await sim.send(whatsAppExample('text_product_inquiry_context'));
    await drain();
    const rows = await queryRows<{ type: string; text: string | null; media_id: string | null }>(
      t.database.db,
      sql`select type, text, media_id from message order by occurred_at_ms`,
    );
    const image = whatsAppExample('image_with_caption').entry[0].changes[0].value.messages[0].image;
    expect(rows).toContainEqual({ type: 'image', text: image.caption ?? null, media_id: image.id });
    expect(rows).toContainEqual({ type: 'text', text: 'Is this still available?', media_id: null });
    const contacts = await queryRows<{ identifier: string; type: string }>(t.database.db, sql`select identifier, type from contact_channel`);
    expect(contacts).toEqual([{ identifier: '+16505551234', type: 'whatsapp' }]);
    const [conv] = await queryRows<{ sender_name: string }>(t.database.db, sql`select sender_name from conversation`);
    expect(conv!.sender_name).toBe('Sheena Nelson');
  });
});

describe('POST /api/interactions/webhooks/communications', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeEach(async () => {
    s = await setup();
  });

  it('stores the same event delivered 3 times once and answers 200 each time', async () => {
    const payload = whatsAppMessage({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { from: '50255550001', text: 'hola' });
    const results = [await sim.send(payload), await sim.send(payload), await sim.send(payload)];
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.map((r) => (r.body as Row).accepted)).toEqual([1, 0, 0]);
    expect(results.map((r) => (r.body as Row).duplicates)).toEqual([0, 1, 1]);
    await drain();
    expect(await count('interaction_webhook_inbox')).toBe(1);
    expect(await count('message')).toBe(1);
    expect(await count('contact')).toBe(1);
    const [conv] = await queryRows<{ unread_count: number }>(t.database.db, sql`select unread_count from conversation`);
    expect(conv!.unread_count).toBe(1);
  });

  it('answers 400 malformed_payload with the reason for a malformed payload and stores nothing', async () => {
    const bad = whatsAppMessage({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { from: '50255550001' });
    delete (bad.entry[0]!.changes[0]!.value as unknown as { messages: Record<string, unknown>[] }).messages[0]!.id;
    for (const body of [
      bad,
      { object: 'something_else' },
      { format: 'canonical', events: [{ kind: 'message' }] },
      { object: 'whatsapp_business_account', entry: [] },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: body });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().code).toBe('malformed_payload');
      expect(res.json().detail).toEqual(expect.any(String));
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().code).toBe('malformed_payload');
    expect(await count('interaction_webhook_inbox')).toBe(0);
    expect(await count('message')).toBe(0);
  });

  it('keeps a valid event for an unknown account as unroutable and lists it for operators', async () => {
    const res = await sim.send(whatsAppMessage({ phoneNumberId: '999000999' }, { from: '50255550002' }));
    expect(res.status).toBe(200);
    await drain();
    expect(await count('message')).toBe(0);
    const operator = await makeMember(t.database.db, { entityId: s.entity.id, superAdmin: true, email: 'ops@example.com' });
    const list = await t.app.inject({ method: 'GET', url: '/api/interactions/webhooks/unroutable', headers: bearer(await tokenFor(t.app, operator)) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([expect.objectContaining({ account_external_id: '999000999', state: 'unroutable', platform: 'whatsapp' })]);
    const denied = await t.app.inject({ method: 'GET', url: '/api/interactions/webhooks/unroutable', headers: bearer(s.token) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'permission_denied', permission: 'communications.command_palette.view' });
    const noToken = await t.app.inject({ method: 'GET', url: '/api/interactions/webhooks/dead-letters' });
    expect(noToken.statusCode).toBe(401);
  });

  it('resolves an unregistered account through the communications config external_app_id', async () => {
    await t.database.executeSql(
      `insert into interaction_communications_config (entity_id, external_app_id, communications_entity_id) values ($1, 'app-77', 'ce-77')`,
      [s.other.id],
    );
    const res = await sim.send(whatsAppMessage({ phoneNumberId: '555000777' }, { from: '50255550003' }), '?external_app_id=app-77');
    expect(res.status).toBe(200);
    await drain();
    const rows = await queryRows<{ entity_id: number }>(t.database.db, sql`select entity_id from conversation`);
    expect(rows).toEqual([{ entity_id: s.other.id }]);
  });

  it('applies statuses in platform order: a late delivered never overwrites read', async () => {
    const acc = { phoneNumberId: DEMO_PHONE_NUMBER_ID };
    const id = 'wamid.OUT1';
    for (const [status, ts] of [
      ['read', 1003],
      ['sent', 1001],
      ['delivered', 1002],
      ['delivered', 1002],
    ] as const) {
      expect((await sim.send(whatsAppStatus(acc, { messageId: id, recipient: '50255550004', status, timestamp: 1_750_000_000 + ts }))).status).toBe(200);
    }
    await drain();
    const [m] = await queryRows<{ status: string; sent_at: Date; delivered_at: Date; read_at: Date }>(
      t.database.db,
      sql`select status, sent_at, delivered_at, read_at from message where external_message_id = ${id}`,
    );
    expect(m!.status).toBe('read');
    expect(new Date(m!.sent_at).getTime()).toBe((1_750_000_000 + 1001) * 1000);
    expect(new Date(m!.delivered_at).getTime()).toBe((1_750_000_000 + 1002) * 1000);
    expect(new Date(m!.read_at).getTime()).toBe((1_750_000_000 + 1003) * 1000);
    expect(await count('interaction_webhook_inbox')).toBe(3);
  });

  it('accepts Messenger and Instagram messages, reactions, deliveries and reads', async () => {
    const page = await makeChannelAccount(t.database.db, { entityId: s.entity.id, externalAccountId: 'PAGE-1', channelTypeCode: 'social_messenger' });
    const ig = await makeChannelAccount(t.database.db, { entityId: s.entity.id, externalAccountId: 'IG-1', channelTypeCode: 'social_dm' });
    const t0 = 1_750_000_000_000;
    const payloads = [
      metaMessage('page', 'PAGE-1', { from: 'PSID-1', text: 'Hi from Messenger', mid: 'm_1', timestamp: t0 }),
      metaMessage('page', 'PAGE-1', { from: 'PSID-1', attachment: { type: 'image' }, mid: 'm_2', timestamp: t0 + 1 }),
      metaMessage('page', 'PAGE-1', { from: 'PSID-1', attachment: { type: 'file' }, mid: 'm_3', timestamp: t0 + 2, replyTo: 'm_1' }),
      metaReaction('page', 'PAGE-1', { from: 'PSID-1', mid: 'm_1', timestamp: t0 + 3 }),
      {
        object: 'page',
        entry: [
          {
            id: 'PAGE-1',
            time: t0,
            messaging: [
              {
                sender: { id: 'PAGE-1' },
                recipient: { id: 'PSID-1' },
                timestamp: t0 + 4,
                message: { mid: 'm_out', text: 'Reply from the page', is_echo: true },
              },
            ],
          },
        ],
      },
      metaStatus('page', 'PAGE-1', { from: 'PSID-1', kind: 'delivery', mids: ['m_out'], timestamp: t0 + 5 }),
      metaStatus('page', 'PAGE-1', { from: 'PSID-1', kind: 'read', watermark: t0 + 10, timestamp: t0 + 6 }),
      metaMessage('instagram', 'IG-1', { from: 'IGSID-1', text: 'Hi from Instagram', mid: 'ig_1', timestamp: t0 }),
      metaMessage('instagram', 'IG-1', { from: 'IGSID-1', attachment: { type: 'story_mention' }, mid: 'ig_2', timestamp: t0 + 1 }),
      {
        object: 'instagram',
        entry: [
          {
            id: 'IG-1',
            time: t0,
            messaging: [
              { sender: { id: 'IG-1' }, recipient: { id: 'IGSID-1' }, timestamp: t0 + 2, message: { mid: 'ig_out', text: 'Thanks!', is_echo: true } },
            ],
          },
        ],
      },
      metaStatus('instagram', 'IG-1', { from: 'IGSID-1', kind: 'read', mids: ['ig_out'], timestamp: t0 + 3 }),
    ];
    for (const p of payloads) expect((await sim.send(p)).status).toBe(200);
    await drain();
    const rows = await queryRows<{ external_message_id: string; type: string; direction: string; status: string | null; channel: string; account: number }>(
      t.database.db,
      sql`select m.external_message_id, m.type, m.direction, m.status, c.channel_type_code as channel, c.entity_channel_account_id as account
            from message m join conversation c on c.id = m.conversation_id order by c.id, m.occurred_at_ms`,
    );
    expect(rows.map((r) => [r.external_message_id.split(':')[0], r.type, r.direction, r.status])).toEqual([
      ['m_1', 'text', 'inbound', null],
      ['m_2', 'image', 'inbound', null],
      ['m_3', 'document', 'inbound', null],
      ['m_1', 'reaction', 'inbound', null],
      ['m_out', 'text', 'outbound', 'read'],
      ['ig_1', 'text', 'inbound', null],
      ['ig_2', 'story_mention', 'inbound', null],
      ['ig_out', 'text', 'outbound', 'read'],
    ]);
    expect(new Set(rows.map((r) => `${r.channel}:${r.account}`))).toEqual(new Set([`social_messenger:${page.id}`, `social_dm:${ig.id}`]));
  });

  it("records Meta's delivery and read events that carry no timestamp of their own (fixtures from Meta's examples), at their watermark", async () => {
    await makeChannelAccount(t.database.db, { entityId: s.entity.id, externalAccountId: 'PAGE-META-1', channelTypeCode: 'social_messenger' });
    await makeChannelAccount(t.database.db, { entityId: s.entity.id, externalAccountId: 'IG-META-1', channelTypeCode: 'social_dm' });
    const echo = (object: string, account: string, user: string, mid: string, at: number) => ({
      object,
      entry: [
        {
          id: account,
          time: at,
          messaging: [{ sender: { id: account }, recipient: { id: user }, timestamp: at, message: { mid, text: 'Our reply', is_echo: true } }],
        },
      ],
    });
    expect((await sim.send(echo('page', 'PAGE-META-1', 'USER-META-1', 'mid.1458668856218:ed81099e15d3f4f233', 1458668856000))).status).toBe(200);
    expect((await sim.send(echo('instagram', 'IG-META-1', 'IGSID-META-1', 'ig_seen_1', 1569262480000))).status).toBe(200);
    await drain();
    for (const name of ['messenger_delivery_without_timestamp', 'messenger_read_without_timestamp']) {
      const res = await sim.send(fixture(`meta-messaging/${name}.json`));
      expect(res.status).toBe(200);
      await drain();
    }
    const ig = fixture('meta-messaging/instagram_read_without_timestamp.json');
    ig.entry[0].messaging[0].read.mid = 'ig_seen_1';
    expect((await sim.send(ig)).status).toBe(200);
    await drain();
    const rows = await queryRows<{ external_message_id: string; status: string; delivered_at: Date | null; read_at: Date | null }>(
      t.database.db,
      sql`select external_message_id, status, delivered_at, read_at from message where direction = 'outbound' order by external_message_id`,
    );
    expect(rows.map((r) => [r.external_message_id, r.status])).toEqual([
      ['ig_seen_1', 'read'],
      ['mid.1458668856218:ed81099e15d3f4f233', 'read'],
    ]);
    expect(new Date(rows[0]!.read_at!).getTime()).toBe(1569262486134);
    expect(new Date(rows[1]!.delivered_at!).getTime()).toBe(1458668856253);
    expect(await queryRows(t.database.db, sql`select id from interaction_webhook_inbox where state <> 'processed'`)).toEqual([]);
  });

  it('accepts the canonical format', async () => {
    const event = {
      kind: 'message',
      platform: 'whatsapp',
      account_id: DEMO_PHONE_NUMBER_ID,
      external_chat_id: '50255550009',
      direction: 'inbound',
      message_id: 'canon-1',
      occurred_at: '2026-01-01T10:00:00.000Z',
      sender: { id: '50255550009', name: 'Canon', phone: '+50255550009' },
      message: { type: 'text', text: 'canonical hello', content: {}, reply_to: null, media_id: null },
    };
    const res = await t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: { format: 'canonical', events: [event] } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: 1, accepted: 1, duplicates: 0 });
    await drain();
    expect(await count('message')).toBe(1);
  });

  it('publishes the message.inbound trigger context with exactly the SPEC fields and types', async () => {
    const seen = captureEvents(t.app, ['message.inbound', 'contact.created']);
    await sim.send(whatsAppExample('text_product_inquiry_context'));
    await drain();
    const inbound = seen.filter((e) => e.name === 'message.inbound').map((e) => e.payload);
    expect(inbound).toHaveLength(1);
    const ctx = inbound[0]! as unknown as Record<string, unknown>;
    expect(Object.keys(ctx).sort()).toEqual(
      [
        'type',
        'entity_id',
        'contact_id',
        'lead_id',
        'group_id',
        'channel_type_code',
        'assignment_status',
        'assigned_employee_ids',
        'sender_identifier',
        'sender_name',
        'message_text',
        'message_id',
        'external_chat_id',
        'entity_channel_account_id',
        'is_first_message',
        'occurred_at',
      ].sort(),
    );
    expect(ctx).toMatchObject({
      type: 'message.inbound',
      entity_id: s.entity.id,
      channel_type_code: 'chatapp_api',
      assignment_status: 'unassigned',
      assigned_employee_ids: [],
      sender_identifier: '+16505551234',
      sender_name: 'Sheena Nelson',
      message_text: 'Is this still available?',
      external_chat_id: '16505551234',
      entity_channel_account_id: s.account.id,
      is_first_message: true,
      occurred_at: new Date(1750016800 * 1000).toISOString(),
    });
    for (const k of ['contact_id', 'lead_id', 'group_id'] as const) expect(typeof ctx[k]).toBe('number');
    expect(seen.filter((e) => e.name === 'contact.created')).toHaveLength(1);
    await sim.send(whatsAppMessage({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { from: '16505551234', text: 'second' }));
    await drain();
    expect(seen.filter((e) => e.name === 'message.inbound').map((e) => (e.payload as unknown as Row).is_first_message)).toEqual([true, false]);
    expect(seen.filter((e) => e.name === 'contact.created')).toHaveLength(1);
  });

  it('commits the events of concurrent deliveries together, counting a repeated event once', async () => {
    const pnid = { phoneNumberId: DEMO_PHONE_NUMBER_ID };
    const payloads = Array.from({ length: 10 }, (_, i) => whatsAppMessage(pnid, { from: `5025555${String(2000 + i)}`, id: `wamid.group.${i}` }));
    const again = [payloads[0]!, payloads[3]!];
    const recorder = recordQueries();
    let responses;
    try {
      responses = await Promise.all(
        [...payloads, ...again].map((payload) => t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload })),
      );
    } finally {
      recorder.stop();
    }
    expect(responses.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    const bodies = responses.map((r) => r.json<{ accepted: number; duplicates: number }>());
    expect(bodies.reduce((n, b) => n + b.accepted, 0)).toBe(10);
    expect(bodies.reduce((n, b) => n + b.duplicates, 0)).toBe(2);
    const inserts = recorder.statements.filter((s) => s.includes('insert into interaction_webhook_inbox'));
    // app.inject hands all twelve to the service in one turn of the event loop: one statement stores them.
    expect(inserts).toHaveLength(1);
    await drain();
    expect(await count('message')).toBe(10);
  });

  it('fails only the delivery whose event the database refuses when deliveries are committed together', async () => {
    const event = (id: string, content: Record<string, unknown>) => ({
      kind: 'message',
      platform: 'whatsapp',
      account_id: DEMO_PHONE_NUMBER_ID,
      external_chat_id: '50255553001',
      direction: 'inbound',
      message_id: id,
      occurred_at: '2026-01-01T10:00:00.000Z',
      sender: { id: '50255553001', name: null, phone: null },
      message: { type: 'text', text: id, content, reply_to: null, media_id: null },
    });
    // PostgreSQL cannot store U+0000 in a JSON key (values are cleaned at parsing, keys are not).
    const payloads = [event('ok-1', {}), event('bad-1', { 'k\u0000': 1 }), event('ok-2', {})].map((e) => ({ format: 'canonical', events: [e] }));
    const responses = await Promise.all(payloads.map((payload) => t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload })));
    expect(responses.map((r) => r.statusCode)).toEqual([200, 400, 200]);
    expect(responses[1]!.json()).toMatchObject({ code: 'invalid_text' });
    await drain();
    const stored = await queryRows<{ external_message_id: string }>(t.database.db, sql`select external_message_id from message order by external_message_id`);
    expect(stored.map((m) => m.external_message_id)).toEqual(['ok-1', 'ok-2']);
  });

  it('accepts texts holding the NUL character or a lone surrogate, each stored as U+FFFD', async () => {
    const payload = whatsAppMessage({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { from: '50255550009', text: 'a\u0000b\ud800c \ud83d\ude00' });
    const res = await sim.send(payload);
    expect(res.status).toBe(200);
    await drain();
    const [m] = await queryRows<{ text: string; content: { text: { body: string } } }>(t.database.db, sql`select text, content from message`);
    expect(m!.text).toBe('a\uFFFDb\uFFFDc \ud83d\ude00');
  });

  it('matches a known sender whatever the phone formatting', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: {
        format: 'canonical',
        events: [
          {
            kind: 'message',
            platform: 'whatsapp',
            account_id: DEMO_PHONE_NUMBER_ID,
            external_chat_id: '50255551234',
            direction: 'inbound',
            message_id: 'fmt-1',
            occurred_at: '2026-01-01T10:00:00.000Z',
            sender: { id: '50255551234', name: null, phone: '+502 5555-1234' },
            message: { type: 'text', text: 'a', content: {}, reply_to: null, media_id: null },
          },
        ],
      },
    });
    await sim.send(whatsAppMessage({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { from: '50255551234', text: 'b' }));
    await drain();
    expect(await count('contact')).toBe(1);
  });

  it('gives one new sender writing to two numbers of the entity at once one contact and two conversations', async () => {
    const second = await makeChannelAccount(t.database.db, { entityId: s.entity.id, externalAccountId: 'SECOND-PNID' });
    const seen = captureEvents(t.app, ['contact.created', 'message.inbound']);
    const event = (account: string, id: string, name: string | null) => ({
      kind: 'message',
      platform: 'whatsapp',
      account_id: account,
      external_chat_id: '50255558001',
      direction: 'inbound',
      message_id: id,
      occurred_at: '2026-01-01T10:00:00.000Z',
      sender: { id: '50255558001', name, phone: '+50255558001' },
      message: { type: 'text', text: id, content: {}, reply_to: null, media_id: null },
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/interactions/webhooks/communications',
      payload: {
        format: 'canonical',
        events: [event(DEMO_PHONE_NUMBER_ID, 'two-1', 'Rosa'), event('SECOND-PNID', 'two-2', null), event(DEMO_PHONE_NUMBER_ID + '-unknown', 'two-3', 'Rosa')],
      },
    });
    expect(res.json()).toMatchObject({ accepted: 3 });
    await drain();
    const convs = await queryRows<Row>(
      t.database.db,
      sql`select entity_channel_account_id, contact_id, sender_name from conversation order by entity_channel_account_id`,
    );
    expect(convs).toHaveLength(2);
    expect(convs.map((c) => c.entity_channel_account_id)).toEqual([s.account.id, second.id]);
    expect(convs[0]!.contact_id).toBe(convs[1]!.contact_id);
    expect(await count('contact')).toBe(1);
    expect(await count('lead')).toBe(1);
    expect(seen.filter((e) => e.name === 'contact.created')).toHaveLength(1);
    // The first message of the contact, not of each conversation (issue 28): one of the two.
    expect(
      seen
        .filter((e) => e.name === 'message.inbound')
        .map((e) => (e.payload as unknown as Row).is_first_message)
        .sort(),
    ).toEqual([false, true]);
    const inbox = await queryRows<Row>(t.database.db, sql`select state from interaction_webhook_inbox order by id`);
    expect(inbox.map((r) => r.state)).toEqual(['processed', 'processed', 'unroutable']);
  });

  it('counts a message as the first only when the contact never wrote on another number of the entity', async () => {
    const third = await makeChannelAccount(t.database.db, { entityId: s.entity.id, externalAccountId: 'THIRD-PNID' });
    const seen = captureEvents(t.app, ['message.inbound']);
    const event = (account: string, id: string) => ({
      kind: 'message',
      platform: 'whatsapp',
      account_id: account,
      external_chat_id: '50255558101',
      direction: 'inbound',
      message_id: id,
      occurred_at: '2026-01-01T10:00:00.000Z',
      sender: { id: '50255558101', name: 'Lea', phone: '+50255558101' },
      message: { type: 'text', text: id, content: {}, reply_to: null, media_id: null },
    });
    const send = async (account: string, id: string) => {
      await t.app.inject({ method: 'POST', url: '/api/interactions/webhooks/communications', payload: { format: 'canonical', events: [event(account, id)] } });
      await drain();
    };
    await send(DEMO_PHONE_NUMBER_ID, 'first-1');
    await send(DEMO_PHONE_NUMBER_ID, 'first-2');
    await send('THIRD-PNID', 'first-3');
    const firsts = seen.filter((e) => e.name === 'message.inbound').map((e) => e.payload as unknown as Row);
    expect(firsts.map((c) => [c.entity_channel_account_id, c.is_first_message])).toEqual([
      [s.account.id, true],
      [s.account.id, false],
      [third.id, false],
    ]);
    expect(new Set(firsts.map((c) => c.contact_id)).size).toBe(1);
  });

  it('moves a known conversation forward only with newer messages, counting every inbound one', async () => {
    const pnid = { phoneNumberId: DEMO_PHONE_NUMBER_ID };
    const from = '50255557001';
    await sim.send(whatsAppMessage(pnid, { from, name: 'Ana', id: 'wamid.k1', text: 'first', timestamp: 1_800_000_100 }));
    await drain();
    const { socket, events } = await connectSocket(baseUrl, { token: s.token });
    try {
      // A later message, then one the platform stamped earlier that arrives late, then a caption-less image.
      await sim.send(whatsAppMessage(pnid, { from, name: 'Ana María', id: 'wamid.k2', text: 'second', timestamp: 1_800_000_300 }));
      await drain();
      await sim.send(whatsAppMessage(pnid, { from, name: 'Ana M.', id: 'wamid.k3', text: 'late', timestamp: 1_800_000_200 }));
      await drain();
      await waitFor(() => events.filter((e) => e.name === 'interaction.message.created').length === 2);
      const updates = events.filter((e) => e.name === 'interaction.conversation.updated').map((e) => e.payload.conversation);
      expect(updates.map((c) => [c.unread_count, c.last_message_preview, c.last_message_at, c.sender_name])).toEqual([
        [2, 'second', '2027-01-15T08:05:00.000Z', 'Ana María'],
        [3, 'second', '2027-01-15T08:05:00.000Z', 'Ana M.'],
      ]);
      const created = events.filter((e) => e.name === 'interaction.message.created').map((e) => e.payload.message);
      expect(created.map((m) => [m.external_message_id, m.text, m.occurred_at])).toEqual([
        ['wamid.k2', 'second', '2027-01-15T08:05:00.000Z'],
        ['wamid.k3', 'late', '2027-01-15T08:03:20.000Z'],
      ]);
      const [conv] = await queryRows<Row>(
        t.database.db,
        sql`select c.unread_count, c.last_message_preview, m.external_message_id as last_id from conversation c join message m on m.id = c.last_message_id`,
      );
      expect(conv).toEqual({ unread_count: 3, last_message_preview: 'second', last_id: 'wamid.k2' });
      expect(await count('message')).toBe(3);
    } finally {
      socket.disconnect();
    }
  });

  it('delivers message and conversation events to a real socket.io client of the entity', async () => {
    const { socket, events } = await connectSocket(baseUrl, { token: s.token });
    try {
      await sim.send(whatsAppExample('location'));
      await waitFor(() => events.find((e) => e.name === 'interaction.message.created'));
      expect(events.map((e) => e.name)).toEqual(
        expect.arrayContaining(['interaction.conversation.created', 'interaction.message.created', 'interaction.conversation.updated']),
      );
      const created = events.find((e) => e.name === 'interaction.message.created')!.payload;
      expect(created.message).toMatchObject({ type: 'location', direction: 'inbound' });
      await sim.send(whatsAppStatus({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { messageId: 'wamid.X', recipient: '16505551234', status: 'delivered' }));
      const status = await waitFor(() => events.find((e) => e.name === 'interaction.message.status'));
      expect(status.payload).toMatchObject({ external_message_id: 'wamid.X', status: 'delivered' });
    } finally {
      socket.disconnect();
    }
  });
});

describe('webhook signature', () => {
  it('verifies X-Hub-Signature-256 when COMMUNICATIONS_WEBHOOK_APP_SECRET is set', async () => {
    const signed = await createTestApp({ env: { COMMUNICATIONS_WEBHOOK_APP_SECRET: 'app-secret' } });
    try {
      const url = await listen(signed.app);
      const payload = whatsAppMessage({ phoneNumberId: DEMO_PHONE_NUMBER_ID }, { from: '50255550005' });
      const good = await createCommunicationsSimulator({ baseUrl: url, appSecret: 'app-secret' }).send(payload);
      expect(good.status).toBe(200);
      const wrong = await createCommunicationsSimulator({ baseUrl: url, appSecret: 'other' }).send(payload);
      expect(wrong.status).toBe(401);
      expect((wrong.body as Row).code).toBe('invalid_signature');
      const missing = await createCommunicationsSimulator({ baseUrl: url }).send(payload);
      expect(missing.status).toBe(401);
    } finally {
      await signed.close();
    }
  });
});
