/**
 * Outbound webhooks (issue 53): an entity's endpoints (`webhooks.manage`), the events they subscribe to, and
 * their deliveries under the Standard Webhooks specification.
 *
 * Never lost: every subscribed domain event has a durable consumer `webhooks` (platform/events), whose job is
 * written in the transaction of the change that caused the event (only when the entity has an endpoint for it),
 * so the event is enqueued exactly when the change commits. That job fans out: one `webhook_delivery` per
 * endpoint, its id (`webhook-id`) derived from the job and the endpoint, so a repeated fan-out writes nothing
 * twice, and one `webhooks.deliver` job per delivery in the same transaction. A delivery attempt is one POST;
 * a failure schedules the next attempt (exponential backoff from 5 s, doubled up to 1 h, ±20 % jitter) until 3
 * days after the delivery was made; every attempt carries the same `webhook-id`, and an attempt lost with its
 * process is retried by the queue. 2xx is success; 410 disables the endpoint; an endpoint failing for 5 days in a
 * row is disabled; both publish `webhook_endpoint.disabled`.
 * Errors: 404 `not_found`, 400 `invalid_webhook_url`, 400 `unknown_event_type`.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import { badRequest, notFound } from '../../platform/errors.js';
import { outboundUrlProblem } from '../../platform/http/outbound.js';
import type { JobContext, Queue } from '../../platform/queue/queue.js';
import { transaction, type UnitOfWork } from '../../platform/transactions/transaction.js';
import { actorOf, type AuditTrail } from '../audit/index.js';
import * as repo from './webhook.repository.js';
import type { CreateEndpointBody, DeliveryResponse, EndpointResponse, UpdateEndpointBody } from './webhook.schemas.js';
import { WEBHOOK_EVENT_NAMES, WEBHOOK_PAYLOAD_VERSION, entityOfEvent, type WebhookEventType } from './webhook.events.js';
import type { WebhookSender } from './webhook.sender.js';
import { newWebhookSecret, signatureHeader } from './webhook.signing.js';

declare module '../../platform/queue/queue.js' {
  interface JobMap {
    'webhooks.deliver': { deliveryId: string };
  }
}

export const DELIVER_QUEUE = 'webhooks.deliver';
const RETRY_FOR_MS = 3 * 24 * 3600 * 1000;
const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
const LONGEST_RETRY_MS = 3600_000;
/** A previous secret keeps signing this long after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
const REPLAY_MAX = 10_000;

export interface Webhooks {
  list(p: Principal): Promise<{ data: EndpointResponse[] }>;
  get(p: Principal, id: number): Promise<EndpointResponse>;
  /** The answer carries the secret (`whsec_...`); later reads do not. */
  create(p: Principal, body: CreateEndpointBody): Promise<EndpointResponse & { secret: string }>;
  update(p: Principal, id: number, body: UpdateEndpointBody): Promise<EndpointResponse>;
  remove(p: Principal, id: number): Promise<void>;
  /** A new secret; the previous one keeps signing for 24 h (deliveries carry both signatures meanwhile). */
  rotateSecret(p: Principal, id: number): Promise<{ secret: string; previous_secret_expires_at: string }>;
  deliveries(p: Principal, id: number, page: { limit: number; before?: string | undefined }): Promise<{ data: DeliveryResponse[] }>;
  /** Sends one delivery again (same `webhook-id`), or every delivery made since `since`; returns how many. */
  replay(p: Principal, id: number, what: { deliveryId: string } | { since: string }): Promise<{ replayed: number }>;
  /** The durable consumer's handler: one delivery per subscribed endpoint, written once whatever the repeats. */
  fanOut(eventType: WebhookEventType, payload: unknown, job: JobContext): Promise<void>;
  /** Whether each payload's entity has an endpoint for `eventType` (read in the publisher's transaction). */
  interest(tx: Db, eventType: WebhookEventType, payloads: unknown[]): Promise<boolean[]>;
  /** One attempt of a delivery (the `webhooks.deliver` job). */
  deliver(deliveryId: string): Promise<void>;
}

interface Deps {
  db: Db;
  queue: Queue;
  events: EventBus;
  send: WebhookSender;
  allowedAddresses: string[];
  /** Delay before the first retry, ms (5 000 by default; doubled per retry). */
  firstRetryMs: number;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** Endpoint changes are audited (issue 54): created, changed, deleted, secret rotated; secrets never enter the trail. */
  audit: AuditTrail;
  now?: () => Date;
}

function toEndpoint(r: repo.EndpointRow): EndpointResponse {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    event_types: [...r.eventTypes],
    enabled: r.enabled,
    disabled_reason: r.disabledReason,
    failing_since: r.failingSince?.toISOString() ?? null,
    previous_secret_expires_at: r.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** The `webhook-id` of an event's delivery to an endpoint: the same for every fan-out of the same event job. */
function deliveryIdOf(jobId: string, endpointId: number): string {
  return `msg_${createHash('sha256').update(`${jobId}:${endpointId}`).digest('hex').slice(0, 32)}`;
}

/** Delay before attempt `attempts + 1`: `firstRetryMs` doubled per attempt up to 1 h, ±20 % jitter. */
function backoffMs(attempts: number, firstRetryMs: number): number {
  const base = Math.min(LONGEST_RETRY_MS, firstRetryMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export function createWebhooks(deps: Deps): Webhooks {
  const { db, queue } = deps;
  const now = deps.now ?? (() => new Date());

  function checkUrl(url: string): void {
    const problem = outboundUrlProblem(url, { allowedAddresses: deps.allowedAddresses, requireHttps: true });
    if (problem !== undefined) throw badRequest('invalid_webhook_url', `The URL ${problem}`);
  }
  function checkEventTypes(types: readonly string[]): void {
    const unknown = types.filter((t) => !(WEBHOOK_EVENT_NAMES as readonly string[]).includes(t));
    if (unknown.length > 0) throw badRequest('unknown_event_type', `Not event types of the catalogue: ${unknown.join(', ')}`, { event_types: unknown });
  }
  async function endpointOf(p: Principal, id: number): Promise<repo.EndpointRow> {
    const row = await repo.findEndpoint(db, p.entityId, id);
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  /** Disables the endpoint, gives up its pending deliveries and tells the entity (`webhook_endpoint.disabled`). */
  async function disable(endpoint: repo.EndpointRow, reason: 'gone' | 'failing'): Promise<void> {
    await transaction(
      db,
      async (unit) => {
        await repo.updateEndpoint(unit.tx, endpoint.entityId, endpoint.id, { enabled: false, disabledReason: reason });
        await repo.failPending(unit.tx, endpoint.id, `endpoint disabled (${reason})`);
        unit.events.domainEvent('webhook_endpoint.disabled', {
          entityId: endpoint.entityId,
          endpointId: endpoint.id,
          url: endpoint.url,
          reason,
          occurredAt: now().toISOString(),
        });
      },
      { events: deps.events },
    );
    deps.log.warn({ endpointId: endpoint.id, entityId: endpoint.entityId, reason }, 'webhook endpoint disabled');
  }

  async function enqueueDeliveries(unit: UnitOfWork, ids: string[], startAfter?: Date): Promise<void> {
    for (const deliveryId of ids) await queue.enqueue(unit, DELIVER_QUEUE, { deliveryId }, startAfter ? { startAfter } : {});
  }

  return {
    async list(p) {
      return { data: (await repo.listEndpoints(db, p.entityId)).map(toEndpoint) };
    },
    async get(p, id) {
      return toEndpoint(await endpointOf(p, id));
    },
    async create(p, body) {
      checkUrl(body.url);
      checkEventTypes(body.event_types);
      const secret = newWebhookSecret();
      const row = await transaction(db, async ({ tx }) => {
        const created = await repo.insertEndpoint(tx, {
          entityId: p.entityId,
          url: body.url,
          description: body.description ?? null,
          eventTypes: [...new Set(body.event_types)],
          secret,
        });
        await deps.audit.record(tx, {
          entityId: p.entityId,
          actor: actorOf(p),
          action: 'webhook_endpoint.create',
          target: { type: 'webhook_endpoint', id: created.id },
          after: { url: created.url, event_types: created.eventTypes, enabled: created.enabled },
        });
        return created;
      });
      return { ...toEndpoint(row), secret };
    },
    async update(p, id, body) {
      const before = await endpointOf(p, id);
      if (body.url !== undefined) checkUrl(body.url);
      if (body.event_types !== undefined) checkEventTypes(body.event_types);
      const values: Parameters<typeof repo.updateEndpoint>[3] = {};
      if (body.url !== undefined) values.url = body.url;
      if (body.description !== undefined) values.description = body.description;
      if (body.event_types !== undefined) values.eventTypes = [...new Set(body.event_types)];
      // Enabling again starts a new run: the failures before the disabling no longer count.
      if (body.enabled !== undefined)
        Object.assign(values, body.enabled ? { enabled: true, disabledReason: null, failingSince: null } : { enabled: false, disabledReason: 'manual' });
      const audited = (r: repo.EndpointRow) => ({ url: r.url, description: r.description, event_types: r.eventTypes, enabled: r.enabled });
      const row = await transaction(db, async ({ tx }) => {
        const after = (await repo.updateEndpoint(tx, p.entityId, id, values))!;
        await deps.audit.record(tx, {
          entityId: p.entityId,
          actor: actorOf(p),
          action: 'webhook_endpoint.update',
          target: { type: 'webhook_endpoint', id },
          before: audited(before),
          after: audited(after),
        });
        return after;
      });
      return toEndpoint(row);
    },
    async remove(p, id) {
      await transaction(db, async ({ tx }) => {
        if (!(await repo.deleteEndpoint(tx, p.entityId, id))) throw notFound('webhook endpoint', id);
        await deps.audit.record(tx, { entityId: p.entityId, actor: actorOf(p), action: 'webhook_endpoint.delete', target: { type: 'webhook_endpoint', id } });
      });
    },
    async rotateSecret(p, id) {
      const endpoint = await endpointOf(p, id);
      const secret = newWebhookSecret();
      const until = new Date(now().getTime() + ROTATION_OVERLAP_MS);
      await transaction(db, async ({ tx }) => {
        await repo.updateEndpoint(tx, p.entityId, id, { secret, previousSecret: endpoint.secret, previousSecretExpiresAt: until });
        await deps.audit.record(tx, {
          entityId: p.entityId,
          actor: actorOf(p),
          action: 'webhook_endpoint.rotate_secret',
          target: { type: 'webhook_endpoint', id },
          details: { previous_secret_expires_at: until.toISOString() },
        });
      });
      return { secret, previous_secret_expires_at: until.toISOString() };
    },
    async deliveries(p, id, page) {
      await endpointOf(p, id);
      const rows = await repo.listDeliveries(db, p.entityId, id, page.limit, page.before ? new Date(page.before) : undefined);
      const attempts = await repo.attemptsOf(
        db,
        rows.map((r) => r.id),
      );
      return {
        data: rows.map((r) => ({
          id: r.id,
          event_type: r.eventType,
          status: r.status as DeliveryResponse['status'],
          attempts: attempts
            .filter((a) => a.deliveryId === r.id)
            .map((a) => ({
              attempted_at: a.attemptedAt.toISOString(),
              status: a.status,
              latency_ms: a.latencyMs,
              response_excerpt: a.responseExcerpt,
              error: a.error,
            })),
          next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
          created_at: r.createdAt.toISOString(),
          delivered_at: r.deliveredAt?.toISOString() ?? null,
          payload: r.payload as Record<string, unknown>,
        })),
      };
    },
    async replay(p, id, what) {
      await endpointOf(p, id);
      return transaction(db, async (unit) => {
        const ids = await repo.rearmDeliveries(
          unit.tx,
          p.entityId,
          id,
          'deliveryId' in what ? { id: what.deliveryId } : { since: new Date(what.since) },
          REPLAY_MAX,
        );
        if ('deliveryId' in what && ids.length === 0) throw notFound('webhook delivery', what.deliveryId);
        await enqueueDeliveries(unit, ids);
        return { replayed: ids.length };
      });
    },
    async interest(tx, eventType, payloads) {
      const entityIds = payloads.map(entityOfEvent);
      const listening = await repo.entitiesListening(tx, [...new Set(entityIds.filter((e): e is number => e !== undefined))], eventType);
      return entityIds.map((e) => e !== undefined && listening.has(e));
    },
    async fanOut(eventType, payload, job) {
      const entityId = entityOfEvent(payload);
      if (entityId === undefined) return;
      const at = now();
      // The body is fixed here, once: every attempt and every replay sends these bytes.
      const body = { type: eventType, version: WEBHOOK_PAYLOAD_VERSION, timestamp: at.toISOString(), data: payload };
      await transaction(db, async (unit) => {
        const endpoints = await repo.subscribedEndpoints(unit.tx, entityId, eventType);
        const ids = await repo.insertDeliveries(
          unit.tx,
          endpoints.map((e) => ({ id: deliveryIdOf(job.id, e.id), entityId, endpointId: e.id, eventType, payload: body, nextAttemptAt: at })),
        );
        await enqueueDeliveries(unit, ids);
      });
    },
    async deliver(deliveryId) {
      const delivery = await repo.findDelivery(db, deliveryId);
      if (!delivery || delivery.status !== 'pending') return;
      const endpoint = await repo.findEndpointById(db, delivery.endpointId);
      if (!endpoint || !endpoint.enabled) {
        await repo.updateDelivery(db, deliveryId, { status: 'failed', nextAttemptAt: null, lastError: 'endpoint disabled' });
        return;
      }
      const sentAt = now();
      const timestamp = Math.floor(sentAt.getTime() / 1000);
      const body = JSON.stringify(delivery.payload);
      const secrets = [endpoint.secret];
      if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > sentAt) secrets.push(endpoint.previousSecret);
      const result = await deps.send(
        endpoint.url,
        { 'webhook-id': deliveryId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(secrets, deliveryId, timestamp, body) },
        body,
      );
      const attempts = delivery.attempts + 1;
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      await repo.insertAttempt(db, {
        deliveryId,
        status: result.status,
        latencyMs: result.latencyMs,
        responseExcerpt: result.responseExcerpt,
        error: result.error,
      });
      const last = { attempts, lastStatus: result.status, lastError: result.error ?? (ok ? null : `answered ${result.status}`) };
      if (ok) {
        await repo.updateDelivery(db, deliveryId, { ...last, status: 'succeeded', nextAttemptAt: null, deliveredAt: now() });
        await repo.clearFailing(db, endpoint.id);
        return;
      }
      if (result.status === 410) {
        await repo.updateDelivery(db, deliveryId, { ...last, status: 'failed', nextAttemptAt: null });
        await disable(endpoint, 'gone');
        return;
      }
      const failing = await repo.markFailing(db, endpoint.id, sentAt);
      if (failing?.failingSince && sentAt.getTime() - failing.failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) {
        await repo.updateDelivery(db, deliveryId, { ...last, status: 'failed', nextAttemptAt: null });
        await disable(endpoint, 'failing');
        return;
      }
      const next = new Date(sentAt.getTime() + backoffMs(attempts, deps.firstRetryMs));
      if (result.refused || next.getTime() - delivery.retryFrom.getTime() > RETRY_FOR_MS) {
        await repo.updateDelivery(db, deliveryId, { ...last, status: 'failed', nextAttemptAt: null });
        return;
      }
      await transaction(db, async (unit) => {
        await repo.updateDelivery(unit.tx, deliveryId, { ...last, nextAttemptAt: next });
        await enqueueDeliveries(unit, [deliveryId], next);
      });
    },
  };
}
