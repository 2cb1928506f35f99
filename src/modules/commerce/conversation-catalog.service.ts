/**
 * The catalog inside a conversation (SPEC "Interactions": catalog/context, catalog/products, catalog/send):
 * who the conversation is with and what they bought, the entity's sales catalog, and a product sent into
 * the chat — as an image with its caption when it has a picture, else as text — through the
 * conversations-out sending path (service window, channel rules, delivery states). Another entity's
 * conversation, or one the caller may not see (interactions' visibility rule), is 404.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { notFound, unprocessable } from '../../platform/errors.js';
import { VIEW_ALL, type ConversationAutomation, type OutboundService } from '../interactions/index.js';
import type { CatalogService, Product } from '../catalogs/index.js';
import type { ErpSessionScope } from '../erp-session/index.js';
import * as orders from './order.repository.js';
import { toOrderResponse } from './order.service.js';

export interface ConversationCatalogDeps {
  db: Db;
  conversations: Pick<ConversationAutomation, 'parties'>;
  outbound: Pick<OutboundService, 'send'>;
  catalog: Pick<CatalogService, 'products' | 'product'>;
  sellersOf(entityId: number, ids: { leadId: number; groupId: number }): Promise<number[]>;
  /** Currency when the lead has no orders yet. */
  defaultCurrency: string;
}

export function createConversationCatalog(deps: ConversationCatalogDeps) {
  // A conversation never changes entity: once seen in an entity, the product search skips the lookup.
  const knownConversations = new LRUCache<string, true>({ max: 50_000 });

  async function partiesOf(p: Principal, conversationId: number) {
    const parties = await deps.conversations.parties(p.entityId, conversationId, p);
    if (!parties) throw notFound('conversation', conversationId);
    return parties;
  }

  return {
    /** The conversation's contact, lead, group and sellers, the currency to quote in and the lead's 5 latest orders. */
    async context(p: Principal, conversationId: number) {
      const c = await partiesOf(p, conversationId);
      const recent = await orders.listOrders(deps.db, p.entityId, { limit: 5, offset: 0, leadId: c.leadId });
      return {
        conversation_id: c.conversationId,
        contact_id: c.contactId,
        lead_id: c.leadId,
        group_id: c.groupId,
        channel_type_code: c.channelTypeCode,
        seller_employee_ids: await deps.sellersOf(p.entityId, { leadId: c.leadId, groupId: c.groupId }),
        currency: recent.rows[0]?.currency ?? deps.defaultCurrency,
        recent_orders: recent.rows.map(toOrderResponse),
      };
    },

    async products(p: Principal, scope: ErpSessionScope, conversationId: number, q: Parameters<CatalogService['products']>[1]) {
      const key = `${p.entityId}:${conversationId}`;
      // Only an entity-wide viewer's lookup is cached: a restricted agent's visibility changes (reassignment).
      const entityWide = p.permissions.has(VIEW_ALL);
      if (!entityWide || !knownConversations.has(key)) {
        await partiesOf(p, conversationId);
        if (entityWide) knownConversations.set(key, true);
      }
      return deps.catalog.products(scope, q);
    },

    /** 404 for an unknown product; 422 `price_not_in_currency` when it has no price in the currency asked for. */
    async send(
      p: Principal,
      scope: ErpSessionScope,
      conversationId: number,
      body: { product_id: string; currency?: string | undefined; reply_to_message_id?: number | undefined },
    ) {
      await partiesOf(p, conversationId);
      const product = await deps.catalog.product(scope, body.product_id);
      if (!product) throw notFound('product', body.product_id);
      const price = body.currency ? product.prices.find((x) => x.currency === body.currency) : product.prices[0];
      if (body.currency && !price)
        throw unprocessable('price_not_in_currency', `${product.code} has no price in ${body.currency}`, { currencies: product.prices.map((x) => x.currency) });
      const text = caption(product, price);
      const reply = body.reply_to_message_id !== undefined ? { reply_to_message_id: body.reply_to_message_id } : {};
      const sender = { entityId: p.entityId, employeeId: p.employeeId, permissions: p.permissions };
      return product.images[0]
        ? deps.outbound.send(sender, conversationId, { kind: 'image', body: { link: product.images[0], caption: text.slice(0, 1024), ...reply } })
        : deps.outbound.send(sender, conversationId, { kind: 'text', body: { body: text, ...reply } });
    },
  };
}

export type ConversationCatalog = ReturnType<typeof createConversationCatalog>;

function caption(product: Product, price: { currency: string; amount: string } | undefined): string {
  return [`*${product.name}* (${product.code})`, price ? `${price.currency} ${price.amount} / ${product.unit}` : undefined, product.description ?? undefined]
    .filter(Boolean)
    .join('\n');
}
