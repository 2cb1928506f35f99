/**
 * Messenger (`object: page`) and Instagram (`object: instagram`) webhooks to canonical events. Both use
 * `entry[].messaging[]` items (Meta "Webhook Events Reference"): `message` (text, `attachments[]` of
 * image/video/audio/file/location/fallback/template/share/story_mention/ig_reel, `quick_reply`,
 * `reply_to`, `is_echo`, `is_unsupported`), `reaction`, `postback`, Messenger `delivery`
 * (`mids[]`, `watermark`) and `read` (`watermark`), Instagram `read` (`mid`). Timestamps are in
 * milliseconds. Other items (referral alone, optins, edits) are ignored.
 */
import { platformTime, MalformedPayload, type CanonicalEvent, type CanonicalMessageEvent, type MessageType, type Platform } from '../../model/index.js';
import { asArray, asRecord, optString, reqString } from '../payload-reading.js';

// A Map, not an object literal: attachment types are platform input, and names such as `constructor`
// must not find Object.prototype members.
const ATTACHMENT_TYPES: ReadonlyMap<string, MessageType> = new Map<string, MessageType>([
  ['image', 'image'],
  ['video', 'video'],
  ['audio', 'audio'],
  ['file', 'document'],
  ['location', 'location'],
  ['sticker', 'sticker'],
  ['share', 'share'],
  ['story_mention', 'story_mention'],
  ['ig_reel', 'share'],
  ['reel', 'share'],
  ['fallback', 'share'],
  ['template', 'unsupported'],
]);

/** Normalizes one Messenger or Instagram webhook body. Throws `MalformedPayload` on a missing field. */
export function normalizeMetaMessaging(body: Record<string, unknown>, platform: Extract<Platform, 'messenger' | 'instagram'>): CanonicalEvent[] {
  const events: CanonicalEvent[] = [];
  asArray(body.entry, '/entry', { nonEmpty: true }).forEach((rawEntry, ei) => {
    const entry = asRecord(rawEntry, `/entry/${ei}`);
    const entryId = reqString(entry.id, `/entry/${ei}/id`);
    asArray(entry.messaging ?? [], `/entry/${ei}/messaging`).forEach((rawItem, mi) => {
      const path = `/entry/${ei}/messaging/${mi}`;
      const item = asRecord(rawItem, path);
      const sender = reqString(asRecord(item.sender, `${path}/sender`).id, `${path}/sender/id`);
      const recipient = optString(asRecord(item.recipient ?? {}, `${path}/recipient`).id) ?? entryId;
      // Meta's delivery and read events may carry no timestamp of their own: their watermark, else the
      // entry's time, is when they happened (refusing them would make the platform retry, then drop them).
      const occurredAt =
        platformTime(item.timestamp, 'ms') ?? (isStatusItem(item) ? (platformTime(statusWatermark(item), 'ms') ?? platformTime(entry.time, 'ms')) : undefined);
      if (occurredAt === undefined) throw new MalformedPayload(`${path}/timestamp must be a UNIX timestamp in milliseconds`, `${path}/timestamp`);
      const event = messagingItem(item, { platform, entryId, sender, recipient, occurredAt, path });
      events.push(...event);
    });
  });
  return events;
}

/** A Messenger `delivery` or Messenger / Instagram `read` item. */
const isStatusItem = (item: Record<string, unknown>) => item.delivery !== undefined || item.read !== undefined;

/** The watermark of a delivery or read item, if it has one. */
function statusWatermark(item: Record<string, unknown>): unknown {
  const status = item.delivery ?? item.read;
  return typeof status === 'object' && status !== null ? (status as Record<string, unknown>).watermark : undefined;
}

interface ItemContext {
  platform: 'messenger' | 'instagram';
  entryId: string;
  sender: string;
  recipient: string;
  occurredAt: string;
  path: string;
}

function messagingItem(item: Record<string, unknown>, c: ItemContext): CanonicalEvent[] {
  const { platform, sender, recipient, occurredAt, path } = c;
  if (item.message !== undefined) {
    const m = asRecord(item.message, `${path}/message`);
    if (m.is_deleted === true) return [];
    const echo = m.is_echo === true;
    const chat = echo ? recipient : sender;
    const account = echo ? sender : recipient;
    const attachments = asArray(m.attachments ?? [], `${path}/message/attachments`).map((a, i) => asRecord(a, `${path}/message/attachments/${i}`));
    const first = attachments[0];
    const text = optString(m.text) ?? null;
    let type: MessageType = 'text';
    if (m.is_unsupported === true) type = 'unsupported';
    else if (first !== undefined) type = ATTACHMENT_TYPES.get(optString(first.type) ?? '') ?? 'unsupported';
    else if (text === null) type = 'unsupported';
    const payload = first?.payload !== undefined ? asRecord(first.payload, `${path}/message/attachments/0/payload`) : undefined;
    if (type === 'image' && payload?.sticker_id !== undefined) type = 'sticker';
    const replyTo = m.reply_to !== undefined ? (optString(asRecord(m.reply_to, `${path}/message/reply_to`).mid) ?? null) : null;
    const content: Record<string, unknown> = {};
    for (const k of ['attachments', 'quick_reply', 'reply_to', 'referral', 'commands'] as const) if (m[k] !== undefined) content[k] = m[k];
    return [
      {
        kind: 'message',
        platform,
        account_id: account,
        external_chat_id: chat,
        direction: echo ? 'outbound' : 'inbound',
        message_id: reqString(m.mid, `${path}/message/mid`),
        occurred_at: occurredAt,
        sender: { id: sender, name: null, phone: null },
        message: { type, text: text ?? optString(payload?.title) ?? null, content, reply_to: replyTo, media_id: null },
      },
    ];
  }
  if (item.reaction !== undefined) {
    const r = asRecord(item.reaction, `${path}/reaction`);
    const mid = reqString(r.mid, `${path}/reaction/mid`);
    const action = optString(r.action) ?? 'react';
    // Reactions carry no id of their own: the reacted message, the action and the time identify one.
    return [
      inboundFromSender(c, `${mid}:reaction:${action}:${Date.parse(occurredAt)}`, {
        type: 'reaction',
        text: action === 'unreact' ? '' : (optString(r.emoji) ?? optString(r.reaction) ?? null),
        content: { reaction: r },
        reply_to: mid,
        media_id: null,
      }),
    ];
  }
  if (item.postback !== undefined) {
    const p = asRecord(item.postback, `${path}/postback`);
    return [
      inboundFromSender(c, optString(p.mid) ?? `postback:${sender}:${Date.parse(occurredAt)}`, {
        type: 'postback',
        text: optString(p.title) ?? null,
        content: { postback: p },
        reply_to: null,
        media_id: null,
      }),
    ];
  }
  if (item.delivery !== undefined) {
    const d = asRecord(item.delivery, `${path}/delivery`);
    const mids = asArray(d.mids ?? [], `${path}/delivery/mids`).map((x, i) => reqString(x, `${path}/delivery/mids/${i}`));
    const watermark = platformTime(d.watermark, 'ms') ?? null;
    const base = {
      kind: 'status' as const,
      platform,
      account_id: recipient,
      external_chat_id: sender,
      status: 'delivered' as const,
      occurred_at: occurredAt,
      errors: null,
    };
    if (mids.length > 0) return mids.map((mid) => ({ ...base, message_id: mid, up_to: null }));
    if (watermark === null) throw new MalformedPayload(`${path}/delivery needs mids or watermark`, `${path}/delivery`);
    return [{ ...base, message_id: null, up_to: watermark }];
  }
  if (item.read !== undefined) {
    const r = asRecord(item.read, `${path}/read`);
    const mid = optString(r.mid);
    const watermark = platformTime(r.watermark, 'ms') ?? null;
    if (mid === undefined && watermark === null) throw new MalformedPayload(`${path}/read needs mid or watermark`, `${path}/read`);
    return [
      {
        kind: 'status',
        platform,
        account_id: recipient,
        external_chat_id: sender,
        message_id: mid ?? null,
        up_to: mid === undefined ? watermark : null,
        status: 'read',
        occurred_at: occurredAt,
        errors: null,
      },
    ];
  }
  return [];
}

/** A message the user (`sender`) sent to the page or account (`recipient`) of the item. */
function inboundFromSender(c: ItemContext, messageId: string, message: CanonicalMessageEvent['message']): CanonicalMessageEvent {
  return {
    kind: 'message',
    platform: c.platform,
    account_id: c.recipient,
    external_chat_id: c.sender,
    direction: 'inbound',
    message_id: messageId,
    occurred_at: c.occurredAt,
    sender: { id: c.sender, name: null, phone: null },
    message,
  };
}
