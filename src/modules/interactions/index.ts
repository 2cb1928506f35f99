/**
 * The interactions module's face: omnichannel conversations in and out. Its rooms (docs/architecture.md
 * "Interactions in rooms") are composed here; other modules see only what this file exports.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditTrail } from '../audit/index.js';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import { createGuardedFetch } from '../../platform/http/outbound.js';
import { attemptExpiryAfterCall } from '../../platform/queue/queue.js';
import { createCommunicationsClient } from '../../integrations/communications/index.js';
import type { CustomFieldTexts } from '../custom-fields/index.js';
import type { IdentityService } from '../identity/index.js';
import type { Labels } from '../labels/index.js';
import type { MediaService } from '../media/index.js';
import { createConversationAutomation, type ConversationAutomation } from './automation/index.js';
import { entityChannelAccountRoutes, createEntityChannelAccountService } from './channel-accounts/index.js';
import {
  communicationsConfigBox,
  communicationsOperationsRoutes,
  configuredEntityIds,
  createCommunicationsConfigService,
  createCommunicationsOperations,
  operatorCommands,
  type CommunicationsOperations,
} from './communications/index.js';
import { conversationRoutes, createConversationService, visibleAmong, viewerOf, type ViewerSource } from './conversations/index.js';
import type { Db } from '../../db/client.js';
import { createConversationSearch, type ConversationSearch } from './message-search/index.js';
import { announceSla, logSlaCycle } from './events/index.js';
import { createConversationLifecycle, lifecycleRoutes } from './lifecycle/index.js';
import { bulkActionRoutes, createBulkActions } from './bulk/index.js';
import { cannedReplyRoutes, createCannedReplies } from './canned-replies/index.js';
import { conversationLabelRoutes, createConversationLabels } from './conversation-labels/index.js';
import { createMediaProxyService, mediaProxyRoutes } from './media-proxy/index.js';
import { createConversationNotes, historyWithNotes, noteRoutes } from './notes/index.js';
import { createWebhookService, webhookRoutes } from './inbound/index.js';
import { createIntakeWorker, createOperatorService, registerIntakeMetrics, type IntakeWorker } from './intake/index.js';
import { channelRoutes } from './channels/index.js';
import { createOutboundService, outboundRoutes, registerSendLatency, type OutboundService } from './outbound/index.js';
import { assignmentRoutes, createAssignmentService, createRoutingService, routingRoutes } from './routing/index.js';
import { createReportService, reportRoutes } from './reports/index.js';
import { createTemplateService, templateRoutes } from './templates/index.js';
import { createServiceLevels, serviceLevelRoutes } from './service-levels/index.js';
import { createLeadPlacement, createRecordCards } from '../records/index.js';
import { createWidgetNamespace, registerWebChannel, webDeliveryTo } from './channels/web/chat/index.js';

export { seedInteractionsDemo, type InteractionsDemo } from './demo.seed.js';
export { buildWidget } from './channels/web/widget/index.js';
export type { EventOrigin } from './events/index.js';
export { createConversationAudience, VIEW_ALL } from './conversations/index.js';

/** The ids among `ids` that `source` (a principal) may see now (conversation-visibility.ts): another entity's never. */
export async function visibleConversationIds(db: Db, source: ViewerSource, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  return new Set((await visibleAmong(db, viewerOf(source), ids, [])).conversationIds);
}
export type { OutboundService } from './outbound/index.js';
export type { ConversationSearch } from './message-search/index.js';
export type { ConversationAutomation, ConversationRef } from './automation/index.js';
export { TemplateMessageBody } from './templates/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The inline intake worker (tests and operators wait on it, reconfigure retries). */
    interactionsWorker: IntakeWorker;
  }
}

/**
 * Registers the communications webhook (`/api/interactions/webhooks/*`), the conversations and routing
 * APIs (`/interactions/*`), sending (`/interactions/conversations/:id/messages/*`), the entity's channel
 * accounts (`/entity-channel-accounts`, codes `entity_channel_accounts.*`), all bare and under /api, and
 * starts the intake worker with the app and the sending workers when `workers`. `customFields` names and fills
 * canned replies' custom field variables.
 */
export async function registerInteractionsModule(
  app: FastifyInstance,
  ctx: AppContext,
  identity: IdentityService,
  media: Pick<MediaService, 'downloadUrls' | 'summaries' | 'ingest' | 'presignUpload' | 'finalizeUpload'>,
  catalogue: Labels,
  customFields: CustomFieldTexts,
  audit: AuditTrail,
  options: { workers: boolean },
): Promise<{ outbound: OutboundService; communications: CommunicationsOperations; automation: ConversationAutomation; search: ConversationSearch }> {
  const { db, events, log } = ctx;
  // Every socket event leaves through the one publisher.
  const realtime = ctx.publisher;
  const leadPlacement = createLeadPlacement(db);
  const serviceLevels = createServiceLevels({
    db,
    queue: ctx.queue,
    events,
    realtime,
    timeZoneOf: (entityId) => identity.timeZoneOf(entityId),
    leadExists: async (entityId, leadId) => (await leadPlacement(entityId, leadId)) !== undefined,
    announce: announceSla,
    cycleOpened: logSlaCycle,
  });
  await serviceLevels.start(options);
  const sla = serviceLevels.clocks;
  const worker = createIntakeWorker({
    db,
    events,
    realtime,
    log,
    sla,
    options: {
      concurrency: ctx.config.communications.intakeConcurrency,
      batchSize: 32,
      maxAttempts: 8,
      retryBaseDelayMs: 1000,
      sweepIntervalMs: 1000,
      retentionDays: 9,
    },
  });
  app.decorate('interactionsWorker', worker);
  app.addHook('onReady', async () => worker.start());
  app.addHook('preClose', async () => worker.stop());
  registerIntakeMetrics(app.metrics, db);

  const { communications: settings } = ctx.config;
  // Every call to a communications service goes through the outbound guard (docs/operations.md "Security").
  const outboundPolicy = { allowedAddresses: settings.allowedAddresses, requireHttps: ctx.config.nodeEnv === 'production' };
  const communicationsConfig = createCommunicationsConfigService({
    db,
    box: communicationsConfigBox(ctx.secrets.erpSessionEncryptionKey),
    fallback: { baseUrl: settings.baseUrl, apiKey: settings.apiKey, entityIdHard: settings.entityIdHard },
    outboundPolicy,
  });
  const communications = createCommunicationsClient({ timeoutMs: settings.timeoutMs, fetch: createGuardedFetch(outboundPolicy) });
  const templates = createTemplateService({ db, client: communications, config: communicationsConfig, log });
  const webhook = createWebhookService({
    database: ctx.database,
    worker,
    appSecret: settings.webhookAppSecret,
    graceSeconds: 2,
    templates,
    maxEvents: settings.webhookMaxEvents,
  });
  const operator = createOperatorService({ db, privilegedEmails: settings.privilegedOperatorEmails, worker });
  await registerRoutes(app, webhookRoutes, {
    prefix: '/api/interactions/webhooks',
    service: webhook,
    operator,
    privilegedEmails: settings.privilegedOperatorEmails,
  });

  // The website chat's visitors (issue 32): the send path delivers web messages to their sockets.
  const widgetHub = createWidgetNamespace(ctx.realtime, log, ctx.config.publicBaseUrl);
  const outbound = createOutboundService({
    db,
    direct: webDeliveryTo(realtime),
    templates,
    queue: ctx.queue,
    events,
    realtime,
    client: communications,
    config: communicationsConfig,
    media: {
      status: async (entityId, id) => (await media.summaries(entityId, [id])).get(id)?.status,
      // Links the platform fetches must be absolute: the embedded store signs paths of this service.
      link: async (entityId, id) => (await media.downloadUrls(entityId, [id], publicOrigin(app, ctx.config.publicBaseUrl))).get(id)?.url,
    },
    log,
    // An attempt is a few statements and one call bounded by the client's timeout.
    attemptExpirySeconds: attemptExpiryAfterCall(settings.timeoutMs),
    sendLatency: registerSendLatency(app.metrics),
    sla,
  });
  await outbound.start(options);
  const conversations = createConversationService({ db, realtime, onRead: (entityId, id) => outbound.queueReadReceipt(entityId, id), historyWithNotes });
  const assignment = createAssignmentService({ db, events, realtime, identity });
  const lifecycle = createConversationLifecycle({ db, queue: ctx.queue, events, realtime, sla });
  await lifecycle.start(options);
  await registerBareAndApi(app, conversationRoutes, { service: conversations });
  await registerBareAndApi(app, lifecycleRoutes, { lifecycle });
  await registerBareAndApi(app, assignmentRoutes, { service: assignment });
  const labels = createConversationLabels({ db, events, realtime, labels: catalogue });
  await registerBareAndApi(app, conversationLabelRoutes, { labels });
  await registerBareAndApi(app, bulkActionRoutes, { bulk: createBulkActions({ lifecycle, assignment, labels, catalogue, log: app.log }) });
  const notes = createConversationNotes({
    db,
    events,
    realtime,
    // A mentioned employee's current permissions, resolved as the guard resolves a request's (identity's grants).
    permissionsOf: async (entityId, employeeId) => {
      const userId = await identity.activeEmployeeUser(entityId, employeeId);
      return userId === undefined ? undefined : (await ctx.authenticator.principalFor(userId, entityId, MENTION_CHECK))?.permissions;
    },
    readyMedia: async (entityId, ids) => new Set([...(await media.summaries(entityId, ids)).values()].filter((m) => m.status === 'ready').map((m) => m.id)),
  });
  await registerBareAndApi(app, noteRoutes, { notes });
  const replies = createCannedReplies({ db, media, outbound, cards: createRecordCards(db), names: identity, customFields });
  await registerBareAndApi(app, cannedReplyRoutes, { replies });
  await registerBareAndApi(app, outboundRoutes, { service: outbound, media });
  await registerBareAndApi(app, channelRoutes, {});
  await registerBareAndApi(app, templateRoutes, { service: templates });
  const operations = createCommunicationsOperations({ config: ctx.config, settings: communicationsConfig, client: communications, log, metrics: app.metrics });
  await registerBareAndApi(app, communicationsOperationsRoutes, {
    operations,
    commands: operatorCommands(operations, { trail: audit, db }),
    privilegedEmails: settings.privilegedOperatorEmails,
  });
  app.addHook('onReady', async () => {
    void operations.atBoot(() => configuredEntityIds(db));
  });
  await registerBareAndApi(app, mediaProxyRoutes, { service: createMediaProxyService({ db, client: communications, config: communicationsConfig }) });
  await registerBareAndApi(app, entityChannelAccountRoutes, { service: createEntityChannelAccountService({ db }) });
  await registerBareAndApi(app, serviceLevelRoutes, { service: serviceLevels });
  await registerBareAndApi(app, routingRoutes, { service: createRoutingService({ db, events, realtime, identity }) });
  await registerWebChannel(app, {
    db,
    database: ctx.database,
    worker,
    box: communicationsConfigBox(ctx.secrets.erpSessionEncryptionKey),
    jwtSecret: ctx.secrets.jwtSecret,
    redis: ctx.redis,
    redisKeyPrefix: ctx.config.redisKeyPrefix,
    realtime,
    hub: widgetHub,
    media,
    settings: ctx.config.widget,
    publicBaseUrl: ctx.config.publicBaseUrl,
    audit,
  });
  const timeZoneOf = (entityId: number) => identity.timeZoneOf(entityId);
  await registerBareAndApi(app, reportRoutes, { service: createReportService({ db, timeZoneOf, audit }) });
  return {
    outbound,
    communications: operations,
    automation: createConversationAutomation({ db, outbound, conversations, assignment, labels, notes }),
    search: createConversationSearch({ db }),
  };
}

/** The client kind of a principal resolved only to read a mentioned employee's permissions (no request of theirs). */
const MENTION_CHECK = 'mention_check';

/** PUBLIC_BASE_URL, else the address this process listens on (development and tests). */
function publicOrigin(app: FastifyInstance, publicBaseUrl: string | undefined): string | undefined {
  if (publicBaseUrl !== undefined) return publicBaseUrl.replace(/\/+$/, '');
  const address = app.server.address();
  return typeof address === 'object' && address !== null
    ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
    : undefined;
}
