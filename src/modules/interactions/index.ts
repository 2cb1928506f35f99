import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram } from 'prom-client';
import { countDead, pendingLag } from './inbox.repository.js';
import type { AppContext } from '../../platform/context.js';
import type { IdentityService } from '../identity/index.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import { readOncePerScrape } from '../../platform/scrape-reading.js';
import { attemptExpiryAfterCall } from '../../platform/queue/queue.js';
import { createInboxWorker, type InboxWorker } from './inbox.worker.js';
import { createWebhookService } from './webhook.service.js';
import { createOperatorService } from './operator.service.js';
import { webhookRoutes } from './webhook.routes.js';
import { createConversationService } from './conversation.service.js';
import { conversationRoutes } from './conversation.routes.js';
import { createRoutingService } from './routing.service.js';
import { routingRoutes } from './routing.routes.js';
import { entityChannelAccountRoutes } from './entity-channel-account.routes.js';
import { createEntityChannelAccountService } from './entity-channel-account.service.js';
import { createSealedBox } from '../../platform/crypto/sealed-box.js';
import { decodeKey } from '../../config.js';
import { createCommunicationsClient } from '../../integrations/communications/index.js';
import type { MediaService } from '../media/index.js';
import { createCommunicationsConfigService } from './communications-config.service.js';
import { createOutboundService, type OutboundService } from './outbound.service.js';
import { outboundRoutes } from './outbound.routes.js';
import { createTemplateService } from './template.service.js';
import { templateRoutes } from './template.routes.js';
import { createMediaProxyService } from './media-proxy.service.js';
import { mediaProxyRoutes } from './media-proxy.routes.js';
import { createCommunicationsOperations, type CommunicationsOperations } from './communications-operations.service.js';
import { communicationsOperationsRoutes } from './communications-operations.routes.js';
import { configuredEntityIds } from './communications-config.repository.js';
import { createConversationAutomation, type ConversationAutomation } from './conversation-automation.service.js';

import './interactions.events.js';
import './interactions.realtime.js';

export { seedInteractionsDemo, type InteractionsDemo } from './demo.seed.js';
export type { EventOrigin, MessageOutboundEvent, MessageInboundTriggerContext } from './interactions.events.js';
export type { OutboundService, Sender } from './outbound.service.js';
export type { ConversationAutomation, ConversationRef } from './conversation-automation.service.js';
export type { AnyOutboundBody } from './outbound.schemas.js';
export { TemplateMessageBody } from './outbound.schemas.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The inline inbox worker (tests and operators wait on it, reconfigure retries). */
    interactionsWorker: InboxWorker;
  }
}

/**
 * Registers the communications webhook (`/api/interactions/webhooks/*`), the conversations and routing
 * APIs (`/interactions/*`), sending (`/interactions/conversations/:id/messages/*`), the entity's channel
 * accounts (`/entity-channel-accounts`, codes `entity_channel_accounts.*`), all bare and under /api, and
 * starts the inbox worker with the app and the sending workers when `workers`.
 */
export async function registerInteractionsModule(
  app: FastifyInstance,
  ctx: AppContext,
  identity: IdentityService,
  media: Pick<MediaService, 'downloadUrls' | 'summaries' | 'ingest'>,
  options: { workers: boolean },
): Promise<{ outbound: OutboundService; communications: CommunicationsOperations; automation: ConversationAutomation }> {
  const worker = createInboxWorker({
    db: ctx.db,
    events: ctx.events,
    realtime: ctx.realtime,
    log: ctx.log,
    options: { concurrency: ctx.database.kind === 'postgres' ? 4 : 2, batchSize: 32, maxAttempts: 8, retryBaseDelayMs: 1000, sweepIntervalMs: 1000, retentionDays: 9 },
  });
  app.decorate('interactionsWorker', worker);
  app.addHook('onReady', async () => worker.start());
  app.addHook('preClose', async () => worker.stop());
  // The inbox's dead letters, counted like the queue's (docs/operations.md "Background jobs").
  app.metrics.registerMetric(
    new Gauge({
      name: 'interactions_inbox_dead_letters',
      help: 'Inbound webhook events on the dead-letter list (permanent failures and exhausted retries)',
      registers: [],
      async collect() {
        this.set(await countDead(ctx.db).catch(() => 0));
      },
    }),
  );
  // The webhook lag: how far projection runs behind acceptance (one query serves both gauges of a scrape).
  const readLag = readOncePerScrape(() => pendingLag(ctx.db), () => ({ pending: 0, oldestAgeSeconds: 0 }));
  app.metrics.registerMetric(
    new Gauge({
      name: 'interactions_inbox_pending_events',
      help: 'Inbound webhook events accepted and not yet projected (retries included)',
      registers: [],
      async collect() {
        this.set((await readLag()).pending);
      },
    }),
  );
  app.metrics.registerMetric(
    new Gauge({
      name: 'interactions_webhook_lag_seconds',
      help: 'Age of the oldest accepted inbound webhook event not yet projected; 0 when none waits',
      registers: [],
      async collect() {
        this.set((await readLag()).oldestAgeSeconds);
      },
    }),
  );

  const key = decodeKey(ctx.secrets.erpSessionEncryptionKey);
  if (!key) throw new Error('ERP_SESSION_ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64)');
  const communicationsConfig = createCommunicationsConfigService({
    db: ctx.db,
    box: createSealedBox(key, 'communications-config'),
    fallback: { baseUrl: ctx.config.communications.baseUrl, apiKey: ctx.config.communications.apiKey, entityIdHard: ctx.config.communications.entityIdHard },
  });
  const communications = createCommunicationsClient({ timeoutMs: ctx.config.communications.timeoutMs });
  const templates = createTemplateService({ db: ctx.db, client: communications, config: communicationsConfig, log: ctx.log });
  const service = createWebhookService({ database: ctx.database, worker, appSecret: ctx.config.communications.webhookAppSecret, graceSeconds: 2, templates });
  const operator = createOperatorService({ db: ctx.db, privilegedEmails: ctx.config.communications.privilegedOperatorEmails, worker });
  await app.register(webhookRoutes, { prefix: '/api/interactions/webhooks', service, operator });
  const sendLatency = new Histogram({
    name: 'interactions_send_latency_seconds',
    help: 'Seconds from an outbound message being stored to the platform accepting it, by platform (retries included)',
    labelNames: ['platform'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [],
  });
  app.metrics.registerMetric(sendLatency);
  const outbound = createOutboundService({
    db: ctx.db,
    templates,
    queue: ctx.queue,
    events: ctx.events,
    realtime: ctx.realtime,
    client: communications,
    config: communicationsConfig,
    media: {
      status: async (entityId, id) => (await media.summaries(entityId, [id])).get(id)?.status,
      // Links the platform fetches must be absolute: the embedded store signs paths of this service.
      link: async (entityId, id) => (await media.downloadUrls(entityId, [id], publicOrigin(app, ctx.config.publicBaseUrl))).get(id)?.url,
    },
    log: ctx.log,
    // An attempt is a few statements and one call bounded by the client's timeout.
    attemptExpirySeconds: attemptExpiryAfterCall(ctx.config.communications.timeoutMs),
    sendLatency,
  });
  await outbound.start(options);
  const conversations = createConversationService({ db: ctx.db, events: ctx.events, realtime: ctx.realtime, identity, onRead: (entityId, id) => outbound.queueReadReceipt(entityId, id) });
  await registerBareAndApi(app, conversationRoutes, { service: conversations });
  await registerBareAndApi(app, outboundRoutes, { service: outbound, media });
  await registerBareAndApi(app, templateRoutes, { service: templates });
  const failures = new Counter({ name: 'interactions_communications_resync_failures_total', help: 'Automatic communications re-syncs (boot, login) that failed', labelNames: ['operation'] as const, registers: [] });
  app.metrics.registerMetric(failures);
  const operations = createCommunicationsOperations({ config: ctx.config, settings: communicationsConfig, client: communications, log: ctx.log, failures });
  await registerBareAndApi(app, communicationsOperationsRoutes, { operations, privilegedEmails: ctx.config.communications.privilegedOperatorEmails });
  app.addHook('onReady', async () => {
    void operations.atBoot(() => configuredEntityIds(ctx.db));
  });
  await registerBareAndApi(app, mediaProxyRoutes, { service: createMediaProxyService({ db: ctx.db, client: communications, config: communicationsConfig }) });
  await registerBareAndApi(app, entityChannelAccountRoutes, { service: createEntityChannelAccountService({ db: ctx.db }) });
  await registerBareAndApi(app, routingRoutes, { service: createRoutingService({ db: ctx.db, events: ctx.events, realtime: ctx.realtime, identity }) });
  return { outbound, communications: operations, automation: createConversationAutomation({ db: ctx.db, outbound, conversations }) };
}

/** PUBLIC_BASE_URL, else the address this process listens on (development and tests). */
function publicOrigin(app: FastifyInstance, publicBaseUrl: string | undefined): string | undefined {
  if (publicBaseUrl !== undefined) return publicBaseUrl.replace(/\/+$/, '');
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : undefined;
}
