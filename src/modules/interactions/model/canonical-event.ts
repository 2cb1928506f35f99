/**
 * The canonical inbound event (SPEC "Inbound webhook processing order", step 2): every platform payload
 * is normalized into a list of these before validation, persistence and processing. The same shape is
 * accepted directly by the webhook as `{ "format": "canonical", "events": [...] }` (docs/api/interactions.md).
 */
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { DELIVERY_STATUSES, MESSAGE_DIRECTIONS, PLATFORMS } from './interactions.enums.js';

/** Message types the service records; anything else arrives as `unsupported`. */
export const MESSAGE_TYPES = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contacts',
  'reaction',
  'interactive',
  'button',
  'order',
  'system',
  'postback',
  'share',
  'story_mention',
  'unsupported',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

const Str = Type.String({ minLength: 1, maxLength: 1024 });
const Iso = Type.String({ format: 'date-time' });
const Resolution = {
  /** Entity id in the communications service; resolves the entity when the account is not registered. */
  communications_entity_id: Type.Optional(Type.Union([Str, Type.Null()])),
  /** App id in the communications service; same purpose. */
  external_app_id: Type.Optional(Type.Union([Str, Type.Null()])),
};

export const CanonicalMessageEvent = Type.Object({
  kind: Type.Literal('message'),
  platform: Type.Enum(PLATFORMS),
  /** The receiving account: WhatsApp phone_number_id, Messenger page id, Instagram account id. */
  account_id: Str,
  /** The customer's platform id (wa_id, PSID, IGSID); one conversation per account and chat. */
  external_chat_id: Str,
  /** `outbound` for echoes of messages sent from another tool on the same account. */
  direction: Type.Enum(MESSAGE_DIRECTIONS),
  message_id: Str,
  occurred_at: Iso,
  sender: Type.Object({
    id: Str,
    name: Type.Union([Type.String({ maxLength: 512 }), Type.Null()]),
    /** E.164 phone when the platform gives one (WhatsApp). */
    phone: Type.Union([Type.String({ maxLength: 32 }), Type.Null()]),
  }),
  message: Type.Object({
    type: Type.Enum(MESSAGE_TYPES),
    /** Text a person reads: body, caption, button or list title, reaction emoji... */
    text: Type.Union([Type.String({ maxLength: 65536 }), Type.Null()]),
    /** The platform's type-specific object, kept as sent. */
    content: Type.Record(Type.String(), Type.Unknown()),
    reply_to: Type.Union([Str, Type.Null()]),
    media_id: Type.Union([Str, Type.Null()]),
  }),
  ...Resolution,
});
export type CanonicalMessageEvent = Static<typeof CanonicalMessageEvent>;

export const CanonicalStatusEvent = Type.Object({
  kind: Type.Literal('status'),
  platform: Type.Enum(PLATFORMS),
  account_id: Str,
  external_chat_id: Type.Union([Str, Type.Null()]),
  /** The message whose status changed; null for watermark statuses (Messenger read/delivery). */
  message_id: Type.Union([Str, Type.Null()]),
  /** Watermark: every outbound message of the chat up to this time takes the status. */
  up_to: Type.Union([Iso, Type.Null()]),
  status: Type.Enum(DELIVERY_STATUSES),
  occurred_at: Iso,
  errors: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
  ...Resolution,
});
export type CanonicalStatusEvent = Static<typeof CanonicalStatusEvent>;

/** Account-level errors (WhatsApp `value.errors`): recorded for operators, no conversation. */
const CanonicalAccountErrorEvent = Type.Object({
  kind: Type.Literal('account_error'),
  platform: Type.Enum(PLATFORMS),
  account_id: Str,
  occurred_at: Iso,
  errors: Type.Array(Type.Unknown(), { minItems: 1 }),
  ...Resolution,
});
type CanonicalAccountErrorEvent = Static<typeof CanonicalAccountErrorEvent>;

export const CanonicalEvent = Type.Union([CanonicalMessageEvent, CanonicalStatusEvent, CanonicalAccountErrorEvent]);
export type CanonicalEvent = Static<typeof CanonicalEvent>;

/** A payload that cannot be accepted; the webhook answers 400 with `reason`. */
export class MalformedPayload extends Error {
  constructor(
    readonly reason: string,
    readonly path = '',
  ) {
    super(reason);
    this.name = 'MalformedPayload';
  }
}

// Compiled once: every webhook request checks its events against it.
const canonicalEventValidator = Compile(CanonicalEvent);

/**
 * Step 3 of SPEC "Inbound webhook processing order": validates normalized events against the canonical
 * schema. Throws `MalformedPayload` naming the first bad field.
 */
export function validateCanonicalEvents(events: unknown[]): CanonicalEvent[] {
  if (events.length === 0) throw new MalformedPayload('The payload holds no event');
  events.forEach((event, i) => {
    if (!canonicalEventValidator.Check(event)) {
      const err = canonicalEventValidator.Errors(event)[0];
      throw new MalformedPayload(`Event ${i}: ${err ? `${err.instancePath || '/'} ${err.message}` : 'invalid'}`, `/events/${i}${err?.instancePath ?? ''}`);
    }
  });
  return events as CanonicalEvent[];
}

/** The deduplication key of an event: the platform's message or status id (a status key includes its value). */
export function eventKey(event: CanonicalEvent): string {
  switch (event.kind) {
    case 'message':
      return `${event.platform}:message:${event.message_id}`;
    case 'status':
      return event.message_id !== null
        ? `${event.platform}:status:${event.message_id}:${event.status}`
        : `${event.platform}:status:${event.account_id}:${event.external_chat_id ?? ''}:${event.status}:${event.up_to ?? event.occurred_at}`;
    case 'account_error':
      return `${event.platform}:account_error:${event.account_id}:${event.occurred_at}:${JSON.stringify(event.errors).slice(0, 200)}`;
  }
}

/** Conversation key used to serialize work: events of one chat are applied one at a time, in order. */
export function chatKey(event: CanonicalEvent): string {
  return chatKeyOf(event.platform, event.account_id, event.kind === 'account_error' ? null : event.external_chat_id);
}

/** The chat key (`platform:account:chat`) from its parts, as the intake row stores them (the sweeper's side of `chatKey`). */
export function chatKeyOf(platform: string, accountId: string, externalChatId: string | null): string {
  return `${platform}:${accountId}:${externalChatId ?? ''}`;
}

/** Platform seconds (string or number) or milliseconds to ISO 8601. */
export function platformTime(value: unknown, unit: 's' | 'ms'): string | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  const d = new Date(unit === 's' ? n * 1000 : n);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
