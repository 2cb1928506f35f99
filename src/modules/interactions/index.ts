import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import { countDead } from './inbox.repository.js';
import type { AppContext } from '../../platform/context.js';
import type { IdentityService } from '../identity/index.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
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
import './interactions.events.js';
import './interactions.realtime.js';

export { seedInteractionsDemo, type InteractionsDemo } from './demo.seed.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The inline inbox worker (tests and operators wait on it, reconfigure retries). */
    interactionsWorker: InboxWorker;
  }
}

/**
 * Registers the communications webhook (`/api/interactions/webhooks/*`), the conversations and routing
 * APIs (`/interactions/*`), the entity's channel accounts (`/entity-channel-accounts`, codes
 * `entity_channel_accounts.*`), all bare and under /api, and starts the inbox worker with the app.
 */
export async function registerInteractionsModule(app: FastifyInstance, ctx: AppContext, identity: IdentityService): Promise<void> {
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

  const service = createWebhookService({ database: ctx.database, worker, appSecret: ctx.config.communications.webhookAppSecret, graceSeconds: 2 });
  const operator = createOperatorService({ db: ctx.db, privilegedEmails: ctx.config.communications.privilegedOperatorEmails, worker });
  await app.register(webhookRoutes, { prefix: '/api/interactions/webhooks', service, operator });
  await registerBareAndApi(app, conversationRoutes, { service: createConversationService({ db: ctx.db, events: ctx.events, realtime: ctx.realtime, identity }) });
  await registerBareAndApi(app, entityChannelAccountRoutes, { service: createEntityChannelAccountService({ db: ctx.db }) });
  await registerBareAndApi(app, routingRoutes, { service: createRoutingService({ db: ctx.db, events: ctx.events, realtime: ctx.realtime, identity }) });
}
