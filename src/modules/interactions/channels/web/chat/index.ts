/**
 * The website chat (issue 32): the `web` channel this service carries itself. Web accounts' settings, the
 * visitor API (`/api/widget/:website_token/*`), the visitors' socket namespace `/widget`, the widget script
 * (`/widget.js`) and its demo page (`/widget/demo`). Visitor messages enter the webhook intake like every channel's
 * events; agents answer with the send endpoints, delivered to the visitor's sockets (outbound's `DirectDelivery`).
 */
import type { AuditTrail } from '../../../../audit/index.js';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../../../../config.js';
import type { Database, Db } from '../../../../../db/client.js';
import type { SealedBox } from '../../../../../platform/crypto/sealed-box.js';
import type { Realtime } from '../../../../../platform/realtime/gateway.js';
import { registerBareAndApi, registerRoutes } from '../../../../../platform/http/dual-prefix.js';
import type { MediaService } from '../../../../media/index.js';
import type { IntakeWorker } from '../../../intake/index.js';
import type { MessageRow } from '../../../conversations/index.js';
import type { Platform } from '../../../model/index.js';
import type { DirectDelivery } from '../../../outbound/index.js';
import { createWebChannelService, toVisitorMessage } from './web-channel.service.js';
import { webChannelStaffRoutes, widgetRoutes } from './web-channel.routes.js';
import { createVisitorTokens, createWidgetHub, createWidgetLimits, type WidgetHub } from '../widget/index.js';
import { widgetAssetRoutes } from './widget-asset.routes.js';
import { VisitorTyping } from './web-channel.schemas.js';
import { defineServerEvent, type RealtimeEmitter } from '../../../../../platform/realtime/events.js';
import { AppError } from '../../../../../platform/errors.js';

export { seedWebChannelDemo } from './web-channel.demo.js';

defineServerEvent('interaction.visitor.typing', VisitorTyping);

/**
 * The visitors' namespace, created before the send path so that it can deliver to it; `publicBaseUrl`
 * (PUBLIC_BASE_URL) names the service's own origin.
 */
export function createWidgetNamespace(realtime: Realtime, log: FastifyInstance['log'], publicBaseUrl: string | undefined): WidgetHub {
  return createWidgetHub(realtime.namespace('/widget'), log, publicBaseUrl);
}

/** What the send path calls to reach visitors (outbound's `DirectDelivery`, by platform): the publisher's visitor events. */
export function webDeliveryTo(publisher: RealtimeEmitter): Partial<Record<Platform, DirectDelivery>> {
  return {
    web: {
      deliver(input: { externalAccountId: string; externalChatId: string; message: MessageRow; mediaUrl: string | null }) {
        publisher.toVisitor(input.externalAccountId, input.externalChatId, 'widget.message', { message: toVisitorMessage(input.message, input.mediaUrl) });
      },
      read(input: { externalAccountId: string; externalChatId: string; upTo: MessageRow }) {
        publisher.toVisitor(input.externalAccountId, input.externalChatId, 'widget.read', { up_to_message_id: input.upTo.id });
      },
    },
  };
}

/** Registers the web channel's routes and starts answering `/widget` handshakes. */
export async function registerWebChannel(
  app: FastifyInstance,
  deps: {
    db: Db;
    database: Pick<Database, 'preparedQuery'>;
    worker: IntakeWorker;
    box: SealedBox;
    jwtSecret: string;
    redis: Redis | undefined;
    redisKeyPrefix: string;
    realtime: RealtimeEmitter;
    hub: WidgetHub;
    media: Pick<MediaService, 'presignUpload' | 'finalizeUpload' | 'downloadUrls'>;
    settings: Config['widget'];
    publicBaseUrl: string | undefined;
    audit: AuditTrail;
  },
): Promise<void> {
  const limits = createWidgetLimits({
    perIp: deps.settings.ratePerIp,
    perVisitor: deps.settings.ratePerVisitor,
    newVisitorsPerRange: deps.settings.newVisitorsPerRange,
    newVisitorsPerWebsite: deps.settings.newVisitorsPerWebsite,
    redis: deps.redis,
    keyPrefix: deps.redisKeyPrefix,
  });
  const service = createWebChannelService({
    db: deps.db,
    audit: deps.audit,
    database: deps.database,
    worker: deps.worker,
    box: deps.box,
    tokens: createVisitorTokens(deps.jwtSecret),
    limits,
    media: deps.media,
    realtime: deps.realtime,
    hub: deps.hub,
    maxTextLength: deps.settings.maxTextLength,
    identityMaxAgeSeconds: deps.settings.identityMaxAgeSeconds,
  });
  await registerBareAndApi(app, webChannelStaffRoutes, { service });
  await registerRoutes(app, widgetRoutes, { prefix: '/api/widget', service, publicBaseUrl: deps.publicBaseUrl });
  await registerRoutes(app, widgetAssetRoutes, { db: deps.db });
  deps.hub.attach({
    authenticate: async ({ websiteToken, token, origin, ownOrigins, ip }) => {
      if (typeof websiteToken !== 'string' || websiteToken === '' || websiteToken.length > 100)
        throw new AppError(400, 'invalid_request', 'Bad request', 'auth.website_token is required');
      return service.authenticate(websiteToken, typeof token === 'string' && token !== '' ? token : undefined, { origin, ownOrigins, ip });
    },
    conversationOf: (v) => service.conversationOf(v),
    typing: async (v, typing) => {
      await limits.byVisitor(v.visitorId);
      await service.visitorTyping(v, typing);
    },
    seen: async (v, status, messageId) => {
      await limits.byVisitor(v.visitorId);
      await service.seen(v, status, messageId);
    },
  });
}
