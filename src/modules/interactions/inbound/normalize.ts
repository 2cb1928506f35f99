/**
 * Step 2 of SPEC "Inbound webhook processing order": recognizes the payload's format by its `object` (each
 * channel adapter's own: WhatsApp Cloud API, Messenger, Instagram) or `format: canonical`, and returns
 * canonical events.
 * Step 3 (structural validation) runs on the result. Throws `MalformedPayload`.
 */
import { MalformedPayload, validateCanonicalEvents, type CanonicalEvent } from '../model/index.js';
import type { TemplateReview } from '../templates/index.js';
import { asRecord, channelOfPayload, PAYLOAD_OBJECTS } from '../channels/index.js';

export interface NormalizeOptions {
  /** Resolution hints forwarded by the communications service (query string), copied onto every event. */
  communicationsEntityId?: string | undefined;
  externalAppId?: string | undefined;
}

/** The template review changes a payload carries (WhatsApp's); [] for any other payload. Throws `MalformedPayload`. */
export function templateReviewsOf(payload: unknown): TemplateReview[] {
  const body = asRecord(payload, '');
  return channelOfPayload(body.object)?.inbound?.templateReviews?.(body) ?? [];
}

export type { TemplateReview };

export function normalizeWebhook(payload: unknown, options: NormalizeOptions = {}): CanonicalEvent[] {
  const body = asRecord(payload, '');
  let events: unknown[];
  if (body.format === 'canonical') {
    if (!Array.isArray(body.events)) throw new MalformedPayload('/events must be an array', '/events');
    events = body.events;
    if (events.length > 1000) throw new MalformedPayload('/events holds more than 1000 events', '/events');
  } else {
    const channel = channelOfPayload(body.object);
    if (channel?.inbound === undefined)
      throw new MalformedPayload(`Unknown payload: expected object ${PAYLOAD_OBJECTS.join(', ')}, or format canonical`, '/object');
    events = channel.inbound.normalize(body);
  }
  const valid = events.length === 0 ? [] : validateCanonicalEvents(events);
  if (options.communicationsEntityId !== undefined || options.externalAppId !== undefined) {
    for (const e of valid) {
      e.communications_entity_id ??= options.communicationsEntityId ?? null;
      e.external_app_id ??= options.externalAppId ?? null;
    }
  }
  return valid;
}
