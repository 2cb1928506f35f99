/**
 * Acceptance of the communications webhook (SPEC "Inbound webhook processing order", steps 1 to 4 and
 * "Webhook and other endpoint authentication"): optional `X-Hub-Signature-256` check, normalization,
 * structural validation, durable insert into the intake (deduplicated by platform event id, committed in
 * groups with concurrent requests), hand-off to the inline worker. Answers as soon as its intake rows are
 * committed. Template review changes (WhatsApp `message_template_status_update`) carry no conversation:
 * they are applied to the templates at once, before the answer. A request carries at most `maxEvents`
 * events (COMMUNICATIONS_WEBHOOK_MAX_EVENTS; more is 413 `too_many_events`), inserted `INSERT_CHUNK` at a
 * time with a turn of the event loop between chunks, so that one large request cannot hold the process
 * (the embedded database runs on the same thread).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import DataLoader from 'dataloader';
import type { Database } from '../../../db/client.js';
import { AppError, badRequest, unauthorized } from '../../../platform/errors.js';
import { chatKey, eventKey, MalformedPayload } from '../model/index.js';
import { normalizeWebhook, templateReviewsOf } from './normalize.js';
import type { TemplateService } from '../templates/index.js';
import { insertNewIntakeEvents, type NewIntakeEvent } from '../intake/index.js';
import type { IntakeWorker } from '../intake/index.js';
import { channelOf } from '../channels/index.js';

interface AcceptResult {
  /** Conversation events and template reviews in the payload. */
  received: number;
  accepted: number;
  duplicates: number;
}

export interface WebhookService {
  /** Throws 400 `malformed_payload`, 401 `invalid_signature` or 413 `too_many_events`. */
  accept(input: {
    rawBody: Buffer | undefined;
    body: unknown;
    signature: string | undefined;
    query: { communications_entity_id?: string | undefined; external_app_id?: string | undefined };
  }): Promise<AcceptResult>;
}

/** Events inserted per step of one request; between steps other requests run. */
const INSERT_CHUNK = 200;

export function createWebhookService(deps: {
  database: Pick<Database, 'preparedQuery'>;
  worker: IntakeWorker;
  appSecret: string | undefined;
  graceSeconds: number;
  templates: Pick<TemplateService, 'applyReviews'>;
  /** Most events one request may carry (COMMUNICATIONS_WEBHOOK_MAX_EVENTS). */
  maxEvents: number;
}): WebhookService {
  const intake = intakeWriter(deps.database, deps.graceSeconds);
  return {
    async accept({ rawBody, body, signature, query }) {
      if (deps.appSecret !== undefined) verifySignature(deps.appSecret, rawBody, signature);
      let events;
      let reviews;
      try {
        events = normalizeWebhook(body, { communicationsEntityId: query.communications_entity_id, externalAppId: query.external_app_id });
        reviews = templateReviewsOf(body);
        // Events of a channel this service carries (the website chat) are written by its own API only: the
        // communications service never speaks for a visitor.
        const own = events.findIndex((e) => channelOf(e.platform).carriedByService);
        if (own >= 0)
          throw new MalformedPayload(
            `${events[own]!.platform} events come from this service's own API, not from the communications webhook`,
            `/events/${own}/platform`,
          );
      } catch (err) {
        if (err instanceof MalformedPayload) throw badRequest('malformed_payload', err.reason, { pointer: err.path });
        throw err;
      }
      if (events.length + reviews.length > deps.maxEvents) {
        throw new AppError(
          413,
          'too_many_events',
          'Content too large',
          `One request may carry at most ${deps.maxEvents} events; this one carries ${events.length + reviews.length}. Split it.`,
          { max_events: deps.maxEvents },
        );
      }
      // One payload may repeat an id (or hold several statuses of one message): keep the first of each key.
      const unique = new Map(events.map((e) => [eventKey(e), e] as const).reverse());
      const items = [...unique].reverse().map(([key, event]) => ({ eventKey: key, chatKey: chatKey(event), event }));
      const ids: (number | null)[] = [];
      for (let from = 0; from < items.length; from += INSERT_CHUNK) {
        if (from > 0) await new Promise((resolve) => setImmediate(resolve));
        ids.push(...(await Promise.all(items.slice(from, from + INSERT_CHUNK).map((item) => intake.load(item)))));
      }
      const inserted = items.flatMap((item, i) => (ids[i] === null ? [] : [{ id: ids[i]!, chatKey: item.chatKey }]));
      deps.worker.dispatch(inserted);
      // A review applied again sets the same status: a redelivered webhook changes nothing.
      if (reviews.length > 0) await deps.templates.applyReviews(reviews);
      return { received: events.length + reviews.length, accepted: inserted.length + reviews.length, duplicates: events.length - inserted.length };
    },
  };
}

/**
 * Group commit of the intake: the events of every request that arrives in one turn of the event loop are
 * inserted by ONE statement (one round trip, one WAL flush), each request still answered only once its
 * events are committed. `load(event)` gives the new row's id, or null for a duplicate (an event key seen
 * before, or earlier in the same group). When the group's statement fails, each event is inserted alone,
 * so one event the database refuses fails only its own request.
 */
function intakeWriter(database: Pick<Database, 'preparedQuery'>, graceSeconds: number): DataLoader<NewIntakeEvent, number | null> {
  const insert = async (events: readonly NewIntakeEvent[]): Promise<(number | null)[]> => {
    const rows = await insertNewIntakeEvents(database, [...events], graceSeconds);
    const idOf = new Map(rows.map((r) => [r.eventKey, r.id]));
    return events.map((e) => {
      const id = idOf.get(e.eventKey);
      idOf.delete(e.eventKey); // a key repeated in the group is new for its first event only
      return id ?? null;
    });
  };
  return new DataLoader(
    async (events) => {
      try {
        return await insert(events);
      } catch (err) {
        if (events.length === 1) throw err;
        return Promise.all(
          events.map((e) =>
            insert([e]).then(
              ([id]) => id ?? null,
              (alone: unknown) => (alone instanceof Error ? alone : new Error(String(alone))),
            ),
          ),
        );
      }
    },
    { cache: false, maxBatchSize: 1000, batchScheduleFn: (run) => setImmediate(run) },
  );
}

/** Verifies Meta's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`; 401 when wrong or missing. */
function verifySignature(secret: string, rawBody: Buffer | undefined, header: string | undefined): void {
  if (rawBody === undefined || header === undefined || !header.startsWith('sha256=')) throw unauthorized('invalid_signature', 'X-Hub-Signature-256 is missing');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(header.slice(7), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw unauthorized('invalid_signature', 'X-Hub-Signature-256 does not match the body');
}
