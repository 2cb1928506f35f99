/**
 * Builders of platform-shaped webhook payloads, as the communications service forwards them: WhatsApp
 * Cloud API (`whatsapp_business_account`), Messenger (`page`) and Instagram (`instagram`). Shapes follow
 * Meta's webhook references (see test/fixtures/platform-payloads/SOURCES.md for the WhatsApp examples).
 */
import { randomBytes } from 'node:crypto';

export const randomId = (prefix = 'wamid.SIM') => `${prefix}${randomBytes(12).toString('base64url')}`;

export interface WhatsAppAccount {
  phoneNumberId: string;
  displayPhoneNumber?: string;
  wabaId?: string;
}

export type WhatsAppMessageType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'document'
  | 'sticker'
  | 'location'
  | 'contacts'
  | 'reaction'
  | 'interactive_button'
  | 'interactive_list'
  | 'button'
  | 'order'
  | 'unsupported';

function waEnvelope(account: WhatsAppAccount, value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: account.wabaId ?? '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: account.displayPhoneNumber ?? '15550783881', phone_number_id: account.phoneNumberId },
              ...value,
            },
            field: 'messages',
          },
        ],
      },
    ],
  };
}

/** One inbound WhatsApp message of `type` from `from` (digits, no +). */
export function whatsAppMessage(
  account: WhatsAppAccount,
  opts: { from: string; name?: string; type?: WhatsAppMessageType; text?: string; id?: string; timestamp?: number; replyTo?: string },
) {
  const type = opts.type ?? 'text';
  const id = opts.id ?? randomId();
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const body: Record<string, unknown> = { from: opts.from, id, timestamp };
  const media = (mime: string) => ({
    mime_type: mime,
    sha256: randomBytes(32).toString('base64'),
    id: String(Date.now()) + randomBytes(2).readUInt16BE(0),
    url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=sim',
  });
  switch (type) {
    case 'text':
      Object.assign(body, { type: 'text', text: { body: opts.text ?? 'Hello' } });
      break;
    case 'image':
      Object.assign(body, { type: 'image', image: { caption: opts.text ?? 'A photo', ...media('image/jpeg') } });
      break;
    case 'video':
      Object.assign(body, { type: 'video', video: { caption: opts.text ?? 'A video', ...media('video/mp4') } });
      break;
    case 'audio':
      Object.assign(body, { type: 'audio', audio: { ...media('audio/ogg; codecs=opus'), voice: true } });
      break;
    case 'document':
      Object.assign(body, { type: 'document', document: { caption: opts.text ?? 'Invoice', filename: 'invoice.pdf', ...media('application/pdf') } });
      break;
    case 'sticker':
      Object.assign(body, { type: 'sticker', sticker: { ...media('image/webp'), animated: false } });
      break;
    case 'location':
      Object.assign(body, { type: 'location', location: { latitude: 14.6349, longitude: -90.5069, name: 'Plaza', address: 'Zona 1, Guatemala' } });
      break;
    case 'contacts':
      Object.assign(body, {
        type: 'contacts',
        contacts: [{ name: { formatted_name: 'Ana López', first_name: 'Ana' }, phones: [{ phone: '+502 5555 1234', wa_id: '50255551234', type: 'CELL' }] }],
      });
      break;
    case 'reaction':
      Object.assign(body, { type: 'reaction', reaction: { message_id: opts.replyTo ?? randomId(), emoji: opts.text ?? '👍' } });
      break;
    case 'interactive_button':
      Object.assign(body, {
        type: 'interactive',
        context: { from: '15550783881', id: opts.replyTo ?? randomId() },
        interactive: { type: 'button_reply', button_reply: { id: 'yes', title: opts.text ?? 'Yes' } },
      });
      break;
    case 'interactive_list':
      Object.assign(body, {
        type: 'interactive',
        context: { from: '15550783881', id: opts.replyTo ?? randomId() },
        interactive: { type: 'list_reply', list_reply: { id: 'opt1', title: opts.text ?? 'Option 1', description: 'First' } },
      });
      break;
    case 'button':
      Object.assign(body, {
        type: 'button',
        context: { from: '15550783881', id: opts.replyTo ?? randomId() },
        button: { payload: 'STOP', text: opts.text ?? 'Stop promotions' },
      });
      break;
    case 'order':
      Object.assign(body, {
        type: 'order',
        order: {
          catalog_id: '194836987003835',
          text: opts.text ?? 'My order',
          product_items: [{ product_retailer_id: 'sku-1', quantity: 2, item_price: 10, currency: 'USD' }],
        },
      });
      break;
    case 'unsupported':
      Object.assign(body, {
        type: 'unsupported',
        errors: [
          { code: 131051, title: 'Message type unknown', message: 'Message type unknown', error_data: { details: 'Message type is currently not supported.' } },
        ],
        unsupported: { type: 'edit' },
      });
      break;
  }
  if (opts.replyTo !== undefined && body.context === undefined && type !== 'reaction')
    body.context = { from: account.displayPhoneNumber ?? '15550783881', id: opts.replyTo };
  return waEnvelope(account, { contacts: [{ profile: { name: opts.name ?? 'Customer' }, wa_id: opts.from }], messages: [body] });
}

/** A WhatsApp status update of one outbound message. */
export function whatsAppStatus(
  account: WhatsAppAccount,
  opts: { messageId: string; recipient: string; status: 'sent' | 'delivered' | 'read' | 'failed'; timestamp?: number },
) {
  const status: Record<string, unknown> = {
    id: opts.messageId,
    status: opts.status,
    timestamp: String(opts.timestamp ?? Math.floor(Date.now() / 1000)),
    recipient_id: opts.recipient,
  };
  if (opts.status === 'failed') status.errors = [{ code: 131049, title: 'This message was not delivered to maintain healthy ecosystem engagement.' }];
  return waEnvelope(account, { statuses: [status] });
}

function messagingEnvelope(object: 'page' | 'instagram', accountId: string, item: Record<string, unknown>) {
  return { object, entry: [{ id: accountId, time: Date.now(), messaging: [item] }] };
}

/**
 * Meta's template review webhook (`message_template_status_update` field of the WhatsApp Business
 * Account): `event` is `APPROVED`, `REJECTED`, `PAUSED`, `DISABLED`...; `reason` is `NONE` unless rejected.
 */
export function whatsAppTemplateReview(opts: { wabaId?: string; templateId: string; name: string; language: string; event: string; reason?: string }) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: opts.wabaId ?? '102290129340398',
        time: Math.floor(Date.now() / 1000),
        changes: [
          {
            field: 'message_template_status_update',
            value: {
              event: opts.event,
              message_template_id: Number(opts.templateId),
              message_template_name: opts.name,
              message_template_language: opts.language,
              reason: opts.reason ?? 'NONE',
            },
          },
        ],
      },
    ],
  };
}

/** A Messenger (`page`) or Instagram (`instagram`) inbound text or attachment message. */
export function metaMessage(
  object: 'page' | 'instagram',
  accountId: string,
  opts: { from: string; text?: string; attachment?: { type: string; url?: string }; mid?: string; timestamp?: number; replyTo?: string },
) {
  const message: Record<string, unknown> = { mid: opts.mid ?? randomId('m_') };
  if (opts.text !== undefined) message.text = opts.text;
  if (opts.attachment) message.attachments = [{ type: opts.attachment.type, payload: { url: opts.attachment.url ?? 'https://scontent.xx.fbcdn.net/sim.jpg' } }];
  if (opts.replyTo !== undefined) message.reply_to = { mid: opts.replyTo };
  return messagingEnvelope(object, accountId, { sender: { id: opts.from }, recipient: { id: accountId }, timestamp: opts.timestamp ?? Date.now(), message });
}

/** A Messenger delivery (mids) or read (watermark) event; Instagram read carries the mid. */
export function metaStatus(
  object: 'page' | 'instagram',
  accountId: string,
  opts: { from: string; kind: 'delivery' | 'read'; mids?: string[]; watermark?: number; timestamp?: number },
) {
  const item: Record<string, unknown> = { sender: { id: opts.from }, recipient: { id: accountId }, timestamp: opts.timestamp ?? Date.now() };
  if (opts.kind === 'delivery') item.delivery = { mids: opts.mids ?? [], watermark: opts.watermark ?? Date.now() };
  else item.read = object === 'instagram' && opts.mids?.[0] !== undefined ? { mid: opts.mids[0] } : { watermark: opts.watermark ?? Date.now() };
  return messagingEnvelope(object, accountId, item);
}

/** A Messenger/Instagram reaction to `mid`. */
export function metaReaction(object: 'page' | 'instagram', accountId: string, opts: { from: string; mid: string; emoji?: string; timestamp?: number }) {
  return messagingEnvelope(object, accountId, {
    sender: { id: opts.from },
    recipient: { id: accountId },
    timestamp: opts.timestamp ?? Date.now(),
    reaction: { mid: opts.mid, action: 'react', reaction: 'love', emoji: opts.emoji ?? '❤' },
  });
}
