/**
 * The webhook normalizers (SPEC "Inbound webhook processing order", steps 2 and 3) as pure functions:
 * Meta's published examples, table-driven, and properties over open-ended inputs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeWebhook } from '../../../src/modules/interactions/inbound/normalize.js';
import {
  chatKey,
  eventKey,
  MalformedPayload,
  MESSAGE_TYPES,
  platformTime,
  type CanonicalEvent,
  type CanonicalMessageEvent,
} from '../../../src/modules/interactions/model/canonical-event.js';
import { metaMessage, metaReaction, metaStatus, whatsAppMessage, whatsAppStatus } from '../../../sim/communications/payloads.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/platform-payloads');
const read = (dir: string, file: string): unknown => JSON.parse(readFileSync(join(FIXTURES, dir, file), 'utf8'));
const files = (dir: string) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => f.endsWith('.json'))
    .sort();

const ACCOUNT = '106540352242922';
const CUSTOMER = '16505551234';
const SHEENA = { id: CUSTOMER, name: 'Sheena Nelson', phone: '+16505551234' };
const account = { phoneNumberId: ACCOUNT };

interface WhatsAppBody {
  entry: {
    changes: { field?: string; value: { metadata: Record<string, unknown>; messages?: Record<string, unknown>[]; statuses?: Record<string, unknown>[] } }[];
  }[];
}
/** The first change of a WhatsApp body, to edit one field of a built payload. */
const change = (body: unknown) => (body as WhatsAppBody).entry[0]!.changes[0]!;
const firstMessage = (body: unknown) => change(body).value.messages![0]!;

/** The MalformedPayload `fn` throws (fails the test when it throws anything else or nothing). */
function rejection(fn: () => unknown): MalformedPayload {
  try {
    fn();
  } catch (err) {
    if (err instanceof MalformedPayload) return err;
    throw err;
  }
  throw new Error('expected a MalformedPayload, nothing was thrown');
}

const only = (events: CanonicalEvent[]): CanonicalEvent => {
  expect(events).toHaveLength(1);
  return events[0]!;
};
const onlyMessage = (payload: unknown): CanonicalMessageEvent => {
  const event = only(normalizeWebhook(payload));
  if (event.kind !== 'message') throw new Error(`expected a message event, got ${event.kind}`);
  return event;
};

describe("Meta's WhatsApp webhook examples", () => {
  // One row per example message: what the canonical event must say, read off the example by hand.
  const messages: Record<
    string,
    { id: string; type: string; text: string | null; reply_to: string | null; media_id: string | null; occurred_at: string; sender?: object; content: string[] }
  > = {
    'audio_voice.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      type: 'audio',
      text: null,
      reply_to: null,
      media_id: '1908647269898587',
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['audio'],
    },
    'button_template_quick_reply.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      type: 'button',
      text: 'Unsubscribe',
      reply_to: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
      media_id: null,
      occurred_at: '2025-06-16T16:24:05.000Z',
      content: ['button', 'context'],
    },
    'contacts.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      type: 'contacts',
      text: null,
      reply_to: null,
      media_id: null,
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['contacts'],
    },
    'document.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      type: 'document',
      text: 'my receipt',
      reply_to: null,
      media_id: '622684793477189',
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['document'],
    },
    'image_with_caption.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      type: 'image',
      text: 'Taj Mahal',
      reply_to: null,
      media_id: '1003383421387256',
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['image'],
    },
    'interactive_button_reply.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTZBQzg0MzQ4QjRCM0NGNkVGOAA=',
      type: 'interactive',
      text: 'Cancel',
      reply_to: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3MEM2RUJFNkI0RENGQTVDRjUA',
      media_id: null,
      occurred_at: '2025-06-15T22:05:36.000Z',
      content: ['interactive', 'context'],
    },
    'interactive_list_reply.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      type: 'interactive',
      text: 'Priority Mail Express',
      reply_to: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
      media_id: null,
      occurred_at: '2025-06-13T22:42:55.000Z',
      content: ['interactive', 'context'],
    },
    'location.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      type: 'location',
      text: 'Philz Coffee, 101 Forest Ave, Palo Alto, CA 94301',
      reply_to: null,
      media_id: null,
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['location'],
    },
    'order.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      type: 'order',
      text: 'Love these!',
      reply_to: null,
      media_id: null,
      occurred_at: '2025-06-16T17:52:05.000Z',
      content: ['order'],
    },
    // A reaction answers the message it reacts to, whether or not it carries a context.
    'reaction.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      type: 'reaction',
      text: '👍',
      reply_to: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
      media_id: null,
      occurred_at: '2025-06-08T21:52:24.000Z',
      content: ['reaction'],
    },
    'referral_click_to_whatsapp_ad.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUQ0N0VFMDA2MTQ0RkJFNkNDNAA=',
      type: 'text',
      text: 'Can I get more info about this?',
      reply_to: null,
      media_id: null,
      occurred_at: '2025-06-18T19:46:32.000Z',
      content: ['text', 'referral'],
    },
    'sticker_animated.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      type: 'sticker',
      text: null,
      reply_to: null,
      media_id: '1908647269898587',
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['sticker'],
    },
    // A system message carries no contacts block, so no profile name.
    'system_user_changed_number.json': {
      id: 'wamid.HBgLMTk4MzU1NTE5NzQVAgASGAoxMTgyMDg2MjY3AA==',
      type: 'system',
      text: 'User Sheena Nelson changed from 16505551234 to 12195555358',
      reply_to: null,
      media_id: null,
      occurred_at: '2025-06-18T17:55:42.000Z',
      sender: { ...SHEENA, name: null },
      content: ['system'],
    },
    'text_product_inquiry_context.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTA2NTUwRkNEMDdFQjJCRUU0NQA=',
      type: 'text',
      text: 'Is this still available?',
      reply_to: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGA9wcm9kdWN0X2lucXVpcnkA',
      media_id: null,
      occurred_at: '2025-06-15T19:46:40.000Z',
      content: ['text', 'context'],
    },
    'unsupported.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      type: 'unsupported',
      text: null,
      reply_to: null,
      media_id: null,
      occurred_at: '2025-06-16T16:18:22.000Z',
      content: ['unsupported', 'errors'],
    },
    'video.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      type: 'video',
      text: 'Timelapse of growth',
      reply_to: null,
      media_id: '731675419373506',
      occurred_at: '2025-04-11T04:08:16.000Z',
      content: ['video'],
    },
  };
  const statuses: Record<string, { id: string; status: string; occurred_at: string; errors: number[] | null }> = {
    'status_delivered.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI3MTE5MjVBOTE3MDk5QUVFM0YA',
      status: 'delivered',
      occurred_at: '2025-06-18T16:22:53.000Z',
      errors: null,
    },
    'status_failed.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI0QUQ2MjA4NEYyRkExNjMyREUA',
      status: 'failed',
      occurred_at: '2025-06-28T20:34:48.000Z',
      errors: [131049],
    },
    'status_sent.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      status: 'sent',
      occurred_at: '2025-06-15T23:27:53.000Z',
      errors: null,
    },
    'status_sent_minimal.json': {
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
      status: 'sent',
      occurred_at: '2025-06-15T23:27:53.000Z',
      errors: null,
    },
  };

  it('has an expectation for every inbound example file, and no expectation without a file', () => {
    expect(files('whatsapp-inbound')).toEqual([...Object.keys(messages), ...Object.keys(statuses), 'value_level_errors.json'].sort());
  });

  it.each(Object.entries(messages))('%s becomes one inbound message event', (file, want) => {
    const event = onlyMessage(read('whatsapp-inbound', file));
    expect(event).toMatchObject({
      kind: 'message',
      platform: 'whatsapp',
      account_id: ACCOUNT,
      external_chat_id: CUSTOMER,
      direction: 'inbound',
      message_id: want.id,
      occurred_at: want.occurred_at,
      sender: want.sender ?? SHEENA,
      message: { type: want.type, text: want.text, reply_to: want.reply_to, media_id: want.media_id },
    });
    // The platform's own objects are kept as sent, under their own names.
    expect(Object.keys(event.message.content).sort()).toEqual([...want.content].sort());
    const raw = firstMessage(read('whatsapp-inbound', file));
    for (const key of want.content) expect(event.message.content[key]).toEqual(raw[key]);
    expect(eventKey(event)).toBe(`whatsapp:message:${want.id}`);
    expect(chatKey(event)).toBe(`whatsapp:${ACCOUNT}:${CUSTOMER}`);
  });

  it.each(Object.entries(statuses))('%s becomes one status event of the outbound message', (file, want) => {
    const event = only(normalizeWebhook(read('whatsapp-inbound', file)));
    expect(event).toMatchObject({
      kind: 'status',
      platform: 'whatsapp',
      account_id: ACCOUNT,
      external_chat_id: CUSTOMER,
      message_id: want.id,
      up_to: null,
      status: want.status,
      occurred_at: want.occurred_at,
    });
    expect(event.kind === 'status' && event.errors?.map((e) => (e as { code: number }).code)).toEqual(want.errors ?? undefined);
    expect(eventKey(event)).toBe(`whatsapp:status:${want.id}:${want.status}`);
  });

  it('value_level_errors.json becomes one account error with the errors as sent', () => {
    const before = Date.now();
    const event = only(normalizeWebhook(read('whatsapp-inbound', 'value_level_errors.json')));
    expect(event).toMatchObject({
      kind: 'account_error',
      platform: 'whatsapp',
      account_id: ACCOUNT,
      errors: [expect.objectContaining({ code: 130429, title: 'Rate limit hit' })],
    });
    // The example has no timestamp: the time of receipt stands in.
    expect(Date.parse(event.occurred_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(event.occurred_at)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it.each(files('whatsapp-outbound'))('the Cloud API request or response body %s is refused as a webhook, naming /object', (file) => {
    const err = rejection(() => normalizeWebhook(read('whatsapp-outbound', file)));
    expect(err.path).toBe('/object');
    expect(err.reason).toMatch(/whatsapp_business_account/);
  });
});

// Any UNIX time up to the end of year 9999 (ISO 8601 date-times have four-digit years), in seconds.
const LAST_SECOND = 253_402_300_799;
const unixSeconds = fc.integer({ min: 1, max: LAST_SECOND });
const waText = fc.string({ minLength: 1, maxLength: 4096, unit: 'grapheme' });

describe('WhatsApp normalizer properties', () => {
  it('keeps any text body and any timestamp (string or number of seconds) in the canonical event', () => {
    fc.assert(
      fc.property(waText, unixSeconds, fc.boolean(), (text, seconds, numeric) => {
        const payload = whatsAppMessage(account, { from: '50255551234', id: 'wamid.P', text, timestamp: seconds });
        if (numeric) firstMessage(payload).timestamp = seconds;
        const event = onlyMessage(payload);
        expect(event.message).toMatchObject({ type: 'text', text });
        expect(event.occurred_at).toBe(new Date(seconds * 1000).toISOString());
      }),
    );
  });

  it('refuses a time after the year 9999 as malformed rather than failing', () => {
    fc.assert(
      fc.property(fc.integer({ min: LAST_SECOND + 1, max: 8_640_000_000_000 }), (seconds) => {
        expect(rejection(() => normalizeWebhook(whatsAppMessage(account, { from: CUSTOMER, timestamp: seconds }))).path).toMatch(/occurred_at$/);
      }),
    );
  });

  it('refuses a timestamp that is not a positive number of seconds, pointing at it', () => {
    const bad = fc.oneof(
      fc.integer({ max: 0 }).map(String),
      fc.string().filter((s) => !/^\d+$/.test(s)),
      fc.constantFrom('1.5', '1e9', ' 1750000000', '-1', '0x10', 'NaN', 'Infinity'),
      fc.constantFrom(null, true, {}, [], Number.NaN, Number.POSITIVE_INFINITY, -5, 0),
    );
    fc.assert(
      fc.property(bad, (timestamp) => {
        const payload = whatsAppMessage(account, { from: '50255551234' });
        firstMessage(payload).timestamp = timestamp;
        expect(rejection(() => normalizeWebhook(payload)).path).toBe('/entry/0/changes/0/value/messages/0/timestamp');
      }),
    );
  });

  it('turns any message type it does not know into an unsupported message that keeps the raw object', () => {
    const known = new Set<string>(MESSAGE_TYPES);
    // Not the message's own fields (from, id...), which a type cannot be named after.
    const envelope = new Set(['from', 'id', 'timestamp', 'type', 'context', 'referral', 'errors', 'identity']);
    const unknownType = fc
      .oneof(fc.string({ minLength: 1 }), fc.constantFrom('unknown', 'edit', 'constructor', '__proto__', 'toString'))
      .filter((t) => t.trim() !== '' && !known.has(t) && !envelope.has(t));
    fc.assert(
      fc.property(unknownType, fc.jsonValue(), (type, body) => {
        const payload = whatsAppMessage(account, { from: '50255551234', id: 'wamid.U' });
        const message = firstMessage(payload);
        delete message.text;
        message.type = type;
        Object.defineProperty(message, type, { value: body, enumerable: true, configurable: true, writable: true });
        const event = onlyMessage(payload);
        expect(event.message.type).toBe('unsupported');
        expect(event.message.text).toBeNull();
        expect(Object.getOwnPropertyDescriptor(event.message.content, type)?.value).toEqual(body ?? null);
      }),
    );
  });

  it('gives every status of one message its own deduplication key, and one chat key', () => {
    const all = (['sent', 'delivered', 'read', 'failed'] as const).map((status) =>
      only(normalizeWebhook(whatsAppStatus(account, { messageId: 'wamid.S', recipient: CUSTOMER, status }))),
    );
    expect(new Set(all.map(eventKey)).size).toBe(4);
    expect(new Set(all.map(chatKey))).toEqual(new Set([`whatsapp:${ACCOUNT}:${CUSTOMER}`]));
  });

  it('ignores statuses it does not track (e.g. deleted) and change fields other than messages', () => {
    const status = whatsAppStatus(account, { messageId: 'wamid.S', recipient: CUSTOMER, status: 'sent' });
    change(status).value.statuses![0]!.status = 'deleted';
    expect(normalizeWebhook(status)).toEqual([]);
    const other = whatsAppMessage(account, { from: CUSTOMER });
    change(other).field = 'account_update';
    expect(normalizeWebhook(other)).toEqual([]);
  });

  it('names the missing field of an incomplete message', () => {
    for (const field of ['from', 'id', 'type', 'timestamp']) {
      const payload = whatsAppMessage(account, { from: CUSTOMER });
      delete firstMessage(payload)[field];
      expect(rejection(() => normalizeWebhook(payload)).path).toBe(`/entry/0/changes/0/value/messages/0/${field}`);
    }
    const noAccount = whatsAppMessage(account, { from: CUSTOMER });
    delete change(noAccount).value.metadata.phone_number_id;
    expect(rejection(() => normalizeWebhook(noAccount)).path).toBe('/entry/0/changes/0/value/metadata/phone_number_id');
  });
});

describe('Messenger and Instagram normalizer properties', () => {
  const platforms = fc.constantFrom(['page', 'messenger'] as const, ['instagram', 'instagram'] as const);
  const millis = fc.integer({ min: 1, max: LAST_SECOND * 1000 + 998 });
  const psid = fc.stringMatching(/^[1-9]\d{5,16}$/);

  it('keeps any text and any millisecond timestamp; the customer is the chat, the page or account receives', () => {
    fc.assert(
      fc.property(platforms, psid, psid, waText, millis, ([object, platform], page, customer, text, ms) => {
        const event = onlyMessage(metaMessage(object, page, { from: customer, text, mid: 'm_1', timestamp: ms }));
        expect(event).toMatchObject({
          platform,
          account_id: page,
          external_chat_id: customer,
          direction: 'inbound',
          message_id: 'm_1',
          occurred_at: new Date(ms).toISOString(),
          message: { type: 'text', text },
        });
      }),
    );
  });

  it('reads an echo as outbound, in the chat of its recipient', () => {
    fc.assert(
      fc.property(platforms, psid, psid, ([object], page, customer) => {
        const payload = metaMessage(object, page, { from: page, text: 'sent from another tool', mid: 'm_echo' });
        const item = payload.entry[0]!.messaging[0] as { recipient: { id: string }; message: Record<string, unknown> };
        item.recipient.id = customer;
        item.message.is_echo = true;
        expect(onlyMessage(payload)).toMatchObject({ account_id: page, external_chat_id: customer, direction: 'outbound' });
      }),
    );
  });

  it('maps the known attachment types and turns any other into an unsupported message', () => {
    const table: Record<string, string> = {
      image: 'image',
      video: 'video',
      audio: 'audio',
      file: 'document',
      location: 'location',
      sticker: 'sticker',
      share: 'share',
      story_mention: 'story_mention',
      ig_reel: 'share',
      reel: 'share',
      fallback: 'share',
      template: 'unsupported',
    };
    for (const [attachment, type] of Object.entries(table)) {
      expect(onlyMessage(metaMessage('page', '1', { from: '2', attachment: { type: attachment } })).message.type).toBe(type);
    }
    const unknown = fc.string({ minLength: 1 }).filter((t) => !(t in table) && !(t in Object.prototype));
    fc.assert(
      fc.property(unknown, (type) => {
        expect(onlyMessage(metaMessage('instagram', '1', { from: '2', attachment: { type } })).message.type).toBe('unsupported');
      }),
    );
  });

  it('turns an attachment type named like an Object.prototype member (constructor, toString) into an unsupported message', () => {
    for (const type of ['constructor', 'toString', '__proto__']) {
      expect(onlyMessage(metaMessage('page', '1', { from: '2', attachment: { type } })).message.type).toBe('unsupported');
    }
  });

  it('identifies a reaction by the reacted message, the action and the time, so a repeat is one event', () => {
    fc.assert(
      fc.property(platforms, millis, ([object], ms) => {
        const a = only(normalizeWebhook(metaReaction(object, '1', { from: '2', mid: 'm_X', timestamp: ms })));
        const b = only(normalizeWebhook(metaReaction(object, '1', { from: '2', mid: 'm_X', timestamp: ms })));
        const later = only(normalizeWebhook(metaReaction(object, '1', { from: '2', mid: 'm_X', timestamp: ms + 1 })));
        expect(a).toMatchObject({ kind: 'message', message: { type: 'reaction', reply_to: 'm_X' } });
        expect(eventKey(a)).toBe(eventKey(b));
        expect(eventKey(later)).not.toBe(eventKey(a));
      }),
    );
  });

  it('turns delivery mids into one status each, and a watermark into one status up to that time', () => {
    const delivered = normalizeWebhook(metaStatus('page', '1', { from: '2', kind: 'delivery', mids: ['m_a', 'm_b'] }));
    expect(delivered.map((e) => e.kind === 'status' && [e.message_id, e.status, e.up_to])).toEqual([
      ['m_a', 'delivered', null],
      ['m_b', 'delivered', null],
    ]);
    fc.assert(
      fc.property(millis, (watermark) => {
        const read = only(normalizeWebhook(metaStatus('page', '1', { from: '2', kind: 'read', watermark })));
        expect(read).toMatchObject({
          kind: 'status',
          status: 'read',
          message_id: null,
          up_to: new Date(watermark).toISOString(),
          external_chat_id: '2',
          account_id: '1',
        });
      }),
    );
    expect(only(normalizeWebhook(metaStatus('instagram', '1', { from: '2', kind: 'read', mids: ['m_ig'] })))).toMatchObject({
      message_id: 'm_ig',
      up_to: null,
    });
  });
});

describe('any payload', () => {
  const isValid = (events: CanonicalEvent[]) => Array.isArray(events) && events.every((e) => ['message', 'status', 'account_error'].includes(e.kind));

  it('never throws anything but a MalformedPayload with a reason, for arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        try {
          expect(isValid(normalizeWebhook(body))).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(MalformedPayload);
          expect((err as MalformedPayload).reason).not.toBe('');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws anything but a MalformedPayload when arbitrary JSON replaces any part of a real envelope', () => {
    const wa = whatsAppMessage(account, { from: CUSTOMER });
    const page = metaMessage('page', '1', { from: '2', text: 'hi', replyTo: 'm_0', attachment: { type: 'image' } });
    const paths: [object, (string | number)[]][] = [
      [wa, ['entry']],
      [wa, ['entry', 0]],
      [wa, ['entry', 0, 'changes']],
      [wa, ['entry', 0, 'changes', 0]],
      [wa, ['entry', 0, 'changes', 0, 'value']],
      [wa, ['entry', 0, 'changes', 0, 'value', 'metadata']],
      [wa, ['entry', 0, 'changes', 0, 'value', 'contacts']],
      [wa, ['entry', 0, 'changes', 0, 'value', 'messages']],
      [wa, ['entry', 0, 'changes', 0, 'value', 'messages', 0]],
      [wa, ['entry', 0, 'changes', 0, 'value', 'messages', 0, 'context']],
      [wa, ['entry', 0, 'changes', 0, 'value', 'statuses']],
      [wa, ['entry', 0, 'changes', 0, 'value', 'errors']],
      [page, ['entry', 0, 'messaging']],
      [page, ['entry', 0, 'messaging', 0]],
      [page, ['entry', 0, 'messaging', 0, 'sender']],
      [page, ['entry', 0, 'messaging', 0, 'timestamp']],
      [page, ['entry', 0, 'messaging', 0, 'message']],
      [page, ['entry', 0, 'messaging', 0, 'message', 'attachments']],
      [page, ['entry', 0, 'messaging', 0, 'message', 'reply_to']],
      [page, ['entry', 0, 'messaging', 0, 'reaction']],
      [page, ['entry', 0, 'messaging', 0, 'delivery']],
      [page, ['entry', 0, 'messaging', 0, 'read']],
      [page, ['entry', 0, 'messaging', 0, 'postback']],
      [{ format: 'canonical', events: [] }, ['events']],
      [{ format: 'canonical', events: [] }, ['events', 0]],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue(), ([base, path], replacement) => {
        const body = structuredClone(base) as Record<string | number, unknown>;
        let at = body;
        for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
        at[path.at(-1)!] = replacement;
        try {
          expect(isValid(normalizeWebhook(body))).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(MalformedPayload);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads an empty canonical envelope as no event, and refuses one that is not a list or longer than 1000 events', () => {
    expect(normalizeWebhook({ format: 'canonical', events: [] })).toEqual([]);
    expect(rejection(() => normalizeWebhook({ format: 'canonical', events: {} })).path).toBe('/events');
    const event = onlyMessage(whatsAppMessage(account, { from: CUSTOMER }));
    expect(normalizeWebhook({ format: 'canonical', events: Array.from({ length: 1000 }, () => event) })).toHaveLength(1000);
    expect(rejection(() => normalizeWebhook({ format: 'canonical', events: Array.from({ length: 1001 }, () => event) })).path).toBe('/events');
  });

  it('accepts a normalized event again in the canonical envelope, unchanged', () => {
    fc.assert(
      fc.property(waText, unixSeconds, (text, seconds) => {
        const event = onlyMessage(whatsAppMessage(account, { from: '50255551234', text, timestamp: seconds }));
        expect(normalizeWebhook({ format: 'canonical', events: [structuredClone(event)] })).toEqual([event]);
      }),
    );
  });

  it('copies the resolution hints onto every event that has none of its own', () => {
    const own = { ...onlyMessage(whatsAppMessage(account, { from: CUSTOMER, id: 'wamid.OWN' })), communications_entity_id: '7' };
    const bare = onlyMessage(whatsAppMessage(account, { from: CUSTOMER, id: 'wamid.BARE' }));
    const events = normalizeWebhook({ format: 'canonical', events: [own, bare] }, { communicationsEntityId: '9', externalAppId: 'app' });
    expect(events.map((e) => [e.communications_entity_id, e.external_app_id])).toEqual([
      ['7', 'app'],
      ['9', 'app'],
    ]);
  });
});

describe('platformTime', () => {
  it('reads seconds and milliseconds, as digits or numbers, into the same instant', () => {
    fc.assert(
      fc.property(unixSeconds, (s) => {
        const iso = new Date(s * 1000).toISOString();
        expect([platformTime(s, 's'), platformTime(String(s), 's'), platformTime(s * 1000, 'ms'), platformTime(String(s * 1000), 'ms')]).toEqual([
          iso,
          iso,
          iso,
          iso,
        ]);
      }),
    );
  });

  it('gives undefined for anything that is not a positive time a Date can hold', () => {
    const bad = fc.oneof(fc.integer({ max: 0 }), fc.constantFrom(1e20, Number.NaN, '', '12a', '-3', '1.5', null, undefined, {}, []));
    fc.assert(
      fc.property(bad, fc.constantFrom('s' as const, 'ms' as const), (value, unit) => {
        expect(platformTime(value, unit)).toBeUndefined();
      }),
    );
  });
});
