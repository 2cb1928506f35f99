/**
 * WhatsApp Cloud API webhook (`object: whatsapp_business_account`) to canonical events. Shapes follow
 * Meta's webhook reference ("messages" field): `entry[].changes[].value` with `metadata.phone_number_id`,
 * `contacts[]`, `messages[]` (text, image, video, audio, document, sticker, location, contacts, reaction,
 * interactive button/list/nfm replies, template quick-reply `button`, order, system, unsupported, with
 * `context` and `referral`), `statuses[]` and value-level `errors[]`. The `message_template_status_update`
 * field is read by `whatsAppTemplateReviews`; other change fields are ignored.
 */
import { normalizePhone } from '../../../records/index.js';
import { MalformedPayload, MESSAGE_TYPES, platformTime, type CanonicalEvent, type CanonicalMessageEvent, type MessageType } from '../../model/index.js';
import type { TemplateReview } from '../../templates/index.js';
import { asArray, asRecord, optString, reqString } from '../payload-reading.js';

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

/** Normalizes one WhatsApp webhook body. Throws `MalformedPayload` when a required field is missing. */
export function normalizeWhatsApp(body: Record<string, unknown>): CanonicalEvent[] {
  const events: CanonicalEvent[] = [];
  const entries = asArray(body.entry, '/entry', { nonEmpty: true });
  entries.forEach((rawEntry, ei) => {
    const entry = asRecord(rawEntry, `/entry/${ei}`);
    asArray(entry.changes, `/entry/${ei}/changes`).forEach((rawChange, ci) => {
      const path = `/entry/${ei}/changes/${ci}`;
      const change = asRecord(rawChange, path);
      if (change.field !== undefined && change.field !== 'messages') return;
      const value = asRecord(change.value, `${path}/value`);
      const metadata = asRecord(value.metadata, `${path}/value/metadata`);
      const accountId = reqString(metadata.phone_number_id, `${path}/value/metadata/phone_number_id`);
      const names = new Map<string, string>();
      for (const c of asArray(value.contacts ?? [], `${path}/value/contacts`)) {
        const contact = asRecord(c, `${path}/value/contacts`);
        const waId = optString(contact.wa_id);
        const name = optString(asRecord(contact.profile ?? {}, `${path}/value/contacts/profile`).name);
        if (waId !== undefined && name !== undefined) names.set(waId, name);
      }
      asArray(value.messages ?? [], `${path}/value/messages`).forEach((raw, mi) => {
        events.push(whatsAppMessage(asRecord(raw, `${path}/value/messages/${mi}`), accountId, names, `${path}/value/messages/${mi}`));
      });
      asArray(value.statuses ?? [], `${path}/value/statuses`).forEach((raw, si) => {
        const sp = `${path}/value/statuses/${si}`;
        const s = asRecord(raw, sp);
        const status = reqString(s.status, `${sp}/status`);
        if (status !== 'sent' && status !== 'delivered' && status !== 'read' && status !== 'failed') return;
        events.push({
          kind: 'status',
          platform: 'whatsapp',
          account_id: accountId,
          external_chat_id: optString(s.recipient_id) ?? null,
          message_id: reqString(s.id, `${sp}/id`),
          up_to: null,
          status,
          occurred_at: time(s.timestamp, `${sp}/timestamp`),
          errors: Array.isArray(s.errors) ? (s.errors as unknown[]) : null,
        });
      });
      if (Array.isArray(value.errors) && value.errors.length > 0) {
        events.push({
          kind: 'account_error',
          platform: 'whatsapp',
          account_id: accountId,
          occurred_at: new Date().toISOString(),
          errors: value.errors as unknown[],
        });
      }
    });
  });
  return events;
}

function time(value: unknown, path: string): string {
  const iso = platformTime(value, 's');
  if (iso === undefined) throw new MalformedPayload(`${path} must be a UNIX timestamp in seconds`, path);
  return iso;
}

function whatsAppMessage(m: Record<string, unknown>, accountId: string, names: Map<string, string>, path: string): CanonicalMessageEvent {
  const from = reqString(m.from, `${path}/from`);
  const rawType = reqString(m.type, `${path}/type`);
  const type: MessageType = rawType !== 'unknown' && (MESSAGE_TYPES as readonly string[]).includes(rawType) ? (rawType as MessageType) : 'unsupported';
  const typed = m[rawType] !== undefined && typeof m[rawType] === 'object' && m[rawType] !== null ? (m[rawType] as Record<string, unknown>) : {};
  const context = m.context !== undefined ? asRecord(m.context, `${path}/context`) : undefined;
  const content: Record<string, unknown> = { [rawType]: m[rawType] ?? null };
  for (const extra of ['context', 'referral', 'errors', 'identity'] as const) if (m[extra] !== undefined) content[extra] = m[extra];
  let replyTo = optString(context?.id) ?? null;
  if (type === 'reaction') replyTo = optString(typed.message_id) ?? replyTo;
  return {
    kind: 'message',
    platform: 'whatsapp',
    account_id: accountId,
    external_chat_id: from,
    direction: 'inbound',
    message_id: reqString(m.id, `${path}/id`),
    occurred_at: time(m.timestamp, `${path}/timestamp`),
    sender: { id: from, name: names.get(from) ?? null, phone: normalizePhone(from) ?? null },
    message: { type, text: whatsAppText(type, typed), content, reply_to: replyTo, media_id: MEDIA_TYPES.has(type) ? (optString(typed.id) ?? null) : null },
  };
}

function whatsAppText(type: MessageType, t: Record<string, unknown>): string | null {
  switch (type) {
    case 'text':
      return optString(t.body) ?? null;
    case 'image':
    case 'video':
    case 'document':
      return optString(t.caption) ?? (type === 'document' ? (optString(t.filename) ?? null) : null);
    case 'location':
      return [optString(t.name), optString(t.address)].filter(Boolean).join(', ') || `${String(t.latitude)},${String(t.longitude)}`;
    case 'contacts':
      return null;
    case 'reaction':
      return optString(t.emoji) ?? null;
    case 'interactive': {
      const kind = optString(t.type) ?? '';
      const reply = t[kind] as Record<string, unknown> | undefined;
      return optString(reply?.title) ?? optString(reply?.body) ?? null;
    }
    case 'button':
      return optString(t.text) ?? null;
    case 'order':
      return optString(t.text) ?? null;
    case 'system':
      return optString(t.body) ?? null;
    default:
      return null;
  }
}

/**
 * The template review changes of one WhatsApp webhook body (`entry[].changes[]` whose field is
 * `message_template_status_update`). Throws `MalformedPayload` when such a change lacks its template id or event.
 */
export function whatsAppTemplateReviews(body: Record<string, unknown>): TemplateReview[] {
  const reviews: TemplateReview[] = [];
  asArray(body.entry, '/entry', { nonEmpty: true }).forEach((rawEntry, ei) => {
    const entry = asRecord(rawEntry, `/entry/${ei}`);
    asArray(entry.changes ?? [], `/entry/${ei}/changes`).forEach((rawChange, ci) => {
      const path = `/entry/${ei}/changes/${ci}`;
      const change = asRecord(rawChange, path);
      if (change.field !== 'message_template_status_update') return;
      const value = asRecord(change.value, `${path}/value`);
      const id = value.message_template_id;
      const providerTemplateId = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : reqString(id, `${path}/value/message_template_id`);
      const reason = optString(value.reason);
      reviews.push({
        providerTemplateId,
        event: reqString(value.event, `${path}/value/event`),
        reason: reason === undefined || reason === 'NONE' ? null : reason,
      });
    });
  });
  return reviews;
}
