/**
 * Outbound webhooks (issue 53): endpoints per entity, deliveries signed per the Standard Webhooks
 * specification, enqueued with the change that caused each event (a durable consumer of the domain events),
 * retried for 3 days, logged and replayable. Hears domain events; calls no other module.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';
import { attemptExpiryAfterCall } from '../../platform/queue/queue.js';
import { WEBHOOK_EVENT_NAMES, type WebhookEventType } from './webhook.events.js';
import { webhookRoutes } from './webhook.routes.js';
import { createWebhookSender } from './webhook.sender.js';
import { DELIVER_QUEUE, createWebhooks } from './webhook.service.js';
import type { AuditTrail } from '../audit/index.js';

export { verifySignature as verifyWebhookSignature } from './webhook.signing.js';

/** The durable consumer name of the webhooks module on every subscribed event (`<event>:webhooks` queues). */
const CONSUMER = 'webhooks';

export async function registerWebhooksModule(app: FastifyInstance, ctx: AppContext, options: { workers: boolean; audit: AuditTrail }): Promise<void> {
  const { outboundWebhooks } = ctx.config;
  const webhooks = createWebhooks({
    db: ctx.db,
    queue: ctx.queue,
    events: ctx.events,
    send: createWebhookSender(outboundWebhooks),
    allowedAddresses: outboundWebhooks.allowedAddresses,
    firstRetryMs: outboundWebhooks.firstRetryMs,
    log: ctx.log,
    audit: options.audit,
  });
  // An attempt is one bounded call: one lost with its process is taken over after three such timeouts.
  await ctx.queue.define(DELIVER_QUEUE, {
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: attemptExpiryAfterCall(outboundWebhooks.timeoutMs),
  });
  for (const event of WEBHOOK_EVENT_NAMES) await subscribe(event);
  if (options.workers)
    await ctx.queue.work(DELIVER_QUEUE, (data) => webhooks.deliver(data.deliveryId), { concurrency: 16, batchSize: 16, pollingIntervalSeconds: 1 });
  await registerRoutes(app, webhookRoutes, { prefix: '/api', webhooks });

  async function subscribe(event: WebhookEventType): Promise<void> {
    await ctx.events.subscribeDurably(event, CONSUMER, (payload, job) => webhooks.fanOut(event, payload, job), {
      policy: { retryLimit: 10, retryDelay: 2, retryBackoff: true, expireInSeconds: 60 },
      work: { concurrency: 4, pollingIntervalSeconds: 2 },
      // Only events of entities with an endpoint for them get a job, read in the publisher's transaction.
      interest: (tx, payloads) => webhooks.interest(tx, event, payloads),
    });
  }
}
