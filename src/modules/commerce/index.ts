/**
 * Commerce: quotes, orders (pushed to the ERP), opportunities on leads and the catalog inside a
 * conversation (SPEC "Catalogo" codes; the post-MVP events quote.approved, quote.rejected, order.created,
 * opportunity.state_changed). Served bare and under /api. Uses records, identity, catalogs and
 * interactions through their services.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DateTime } from 'luxon';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import type { IdentityService } from '../identity/index.js';
import { createContactPlacement, createLeadPlacement, sellersOf } from '../records/index.js';
import type { CatalogService } from '../catalogs/index.js';
import type { ConversationAutomation, OutboundService } from '../interactions/index.js';
import { createConversationCatalog } from './conversation-catalog.service.js';
import { createQuoteDelivery } from './quote-delivery.js';
import type { MediaService } from '../media/index.js';
import { conversationCatalogRoutes } from './conversation-catalog.routes.js';
import { createQuoteService } from './quote.service.js';
import { createOrderService } from './order.service.js';
import { createOpportunityService } from './opportunity.service.js';
import { quoteRoutes } from './quote.routes.js';
import { orderRoutes } from './order.routes.js';
import { opportunityRoutes } from './opportunity.routes.js';
import type { PartyLookups } from './commerce-parties.js';
import { createOrderPush } from './order-push.js';
import type { ErpModule } from '../erp-session/index.js';

import './commerce.events.js';

export { minorDigits } from './money.js';

/** Registers `/quotes`, `/orders`, `/opportunities` and `/opportunity-pipeline` (bare and under /api) and, with `workers`, the ERP push worker. */
export async function registerCommerceModule(
  app: FastifyInstance,
  ctx: AppContext,
  deps: {
    identity: Pick<IdentityService, 'assertActiveMember' | 'entity' | 'timeZoneOf'>;
    erp: ErpModule;
    catalog: CatalogService;
    conversations: ConversationAutomation;
    outbound: OutboundService;
    media: Pick<MediaService, 'ingest'>;
  },
  options: { workers: boolean },
): Promise<void> {
  const { identity } = deps;
  const lookups: PartyLookups = {
    lead: createLeadPlacement(ctx.db),
    contact: createContactPlacement(ctx.db),
    assertActiveMember: (entityId, employeeId, field) => identity.assertActiveMember(entityId, employeeId, field),
  };
  // Quote validity dates are days in the entity's time zone.
  const today = async (entityId: number) =>
    DateTime.now()
      .setZone(await identity.timeZoneOf(entityId))
      .toISODate()!;
  const quotes = createQuoteService({ db: ctx.db, events: ctx.events, lookups, today });
  const push = createOrderPush({
    db: ctx.db,
    queue: ctx.queue,
    erp: deps.erp.erp,
    credentials: (scope) => deps.erp.sessions.credentials(scope),
    clientIdOf: async (entityId, leadId) => (await lookups.lead(entityId, leadId))?.erpId ?? null,
    log: ctx.log,
  });
  await push.start(options.workers);
  const orders = createOrderService({ db: ctx.db, events: ctx.events, lookups, quotes, queuePush: push.queue });
  const opportunities = createOpportunityService({ db: ctx.db, events: ctx.events, lookups });
  const conversationCatalog = createConversationCatalog({
    db: ctx.db,
    conversations: deps.conversations,
    outbound: deps.outbound,
    catalog: deps.catalog,
    sellersOf: (entityId, ids) => sellersOf(ctx.db, entityId, ids),
    defaultCurrency: 'GTQ',
  });
  const delivery = createQuoteDelivery({
    quotes,
    lookups,
    entityName: async (entityId) => (await identity.entity(entityId))?.name ?? '',
    media: deps.media,
    outbound: deps.outbound,
    conversationExists: async (p, id) => (await deps.conversations.parties(p.entityId, id, p)) !== undefined,
  });
  const plugin: FastifyPluginAsyncTypebox = async (scope) => {
    await registerRoutes(scope, conversationCatalogRoutes, { service: conversationCatalog });
    await registerRoutes(scope, quoteRoutes, { service: quotes, delivery });
    await registerRoutes(scope, orderRoutes, { service: orders });
    await registerRoutes(scope, opportunityRoutes, { service: opportunities });
  };
  await registerBareAndApi(app, plugin, {});
}
