/**
 * Orders: created from an approved quote (its lines, currency and parties copied; one order per quote)
 * or directly with lines; `order.created` is published and the ERP push queued in the same transaction.
 * Errors: 400 naming the field, 403 `seller_change_forbidden`, 404, 409 `quote_not_approved` /
 * `order_exists`.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import { conflict, notFound } from '../../platform/errors.js';
import { transaction, type PublishingUnitOfWork, type UnitOfWork } from '../../platform/transactions/transaction.js';
import { assertCurrency, priceLines, toAmountsResponse, toLineResponse, type StoredLine } from './document-lines.js';
import { partiesOf, sellerFor, type PartyLookups } from './commerce-parties.js';
import type { QuoteService } from './quote.service.js';
import * as repo from './order.repository.js';
import type { OrderCreateBody, OrderListQuery, OrderResponse } from './order.schemas.js';
import type { DocumentAmounts } from './quote-totals.js';

export function createOrderService(deps: {
  db: Db;
  events: EventBus;
  lookups: PartyLookups;
  quotes: Pick<QuoteService, 'forOrder' | 'today'>;
  queuePush: (unit: UnitOfWork, orderId: number) => Promise<void>;
}) {
  const { db } = deps;

  async function load(p: Principal, id: number) {
    const o = await repo.findOrder(db, p.entityId, id);
    if (!o) throw notFound('order', id);
    return o;
  }

  interface Draft {
    leadId: number;
    groupId: number;
    contactId: number | null;
    sellerEmployeeId: number;
    currency: string;
    notes: string;
    quoteId: number | null;
    lines: StoredLine[];
    amounts: DocumentAmounts;
  }

  async function store(p: Principal, unit: PublishingUnitOfWork, d: Draft): Promise<number> {
    const { tx, events } = unit;
    const row = await repo.insertOrder(
      tx,
      {
        entityId: p.entityId,
        leadId: d.leadId,
        contactId: d.contactId,
        sellerEmployeeId: d.sellerEmployeeId,
        currency: d.currency,
        notes: d.notes,
        quoteId: d.quoteId,
        createdByEmployeeId: p.employeeId,
        erpScope: { userId: p.userId, clientKind: p.clientKind },
        ...d.amounts,
      },
      d.lines,
    );
    if (!row) throw conflict('order_exists', 'The quote already has an order');
    events.domainEvent('order.created', {
      entityId: p.entityId,
      orderId: row.id,
      quoteId: d.quoteId,
      leadId: d.leadId,
      groupId: d.groupId,
      contactId: d.contactId,
      sellerEmployeeId: d.sellerEmployeeId,
      currency: d.currency,
      totalMinor: d.amounts.totalMinor,
      createdByEmployeeId: p.employeeId,
      occurredAt: row.createdAt.toISOString(),
    });
    await deps.queuePush(unit, row.id);
    return row.id;
  }

  return {
    async create(p: Principal, body: OrderCreateBody): Promise<OrderResponse> {
      let id: number;
      if ('quote_id' in body) {
        const today = await deps.quotes.today(p.entityId);
        const preview = await transaction(db, ({ tx }) => deps.quotes.forOrder(tx, p, body.quote_id, today));
        const { groupId } = await partiesOf(p.entityId, preview.quote.leadId, null, deps.lookups);
        id = await transaction(
          db,
          async (unit) => {
            const { quote: q, status } = await deps.quotes.forOrder(unit.tx, p, body.quote_id, today);
            if (status !== 'approved') throw conflict('quote_not_approved', `Only an approved quote becomes an order; this one is ${status}`, { status });
            if (q.orderId !== null) throw conflict('order_exists', 'The quote already has an order', { order_id: q.orderId });
            const { subtotalMinor, discountMinor, taxMinor, totalMinor } = q;
            return store(p, unit, {
              leadId: q.leadId,
              groupId,
              contactId: q.contactId,
              sellerEmployeeId: q.sellerEmployeeId,
              currency: q.currency,
              notes: q.notes,
              quoteId: q.id,
              lines: q.lines,
              amounts: { subtotalMinor, discountMinor, taxMinor, totalMinor },
            });
          },
          { events: deps.events },
        );
      } else {
        assertCurrency(body.currency);
        const priced = priceLines(body.lines, body.currency);
        const parties = await partiesOf(p.entityId, body.lead_id, body.contact_id, deps.lookups);
        const seller = await sellerFor(p, body.seller_employee_id, deps.lookups);
        id = await transaction(
          db,
          (unit) =>
            store(p, unit, {
              leadId: body.lead_id,
              groupId: parties.groupId,
              contactId: parties.contactId,
              sellerEmployeeId: seller,
              currency: body.currency,
              notes: body.notes ?? '',
              quoteId: null,
              ...priced,
            }),
          { events: deps.events },
        );
      }
      return toOrderResponse(await load(p, id));
    },

    async get(p: Principal, id: number): Promise<OrderResponse> {
      return toOrderResponse(await load(p, id));
    },

    /** Queues the ERP push again for an order whose push failed (same idempotency key: never a second ERP order). 409 `order_pushed` once pushed. */
    async retryPush(p: Principal, id: number): Promise<OrderResponse> {
      const o = await load(p, id);
      if (o.erpPushStatus === 'pushed') throw conflict('order_pushed', 'The order is already in the ERP', { erp_order_number: o.erpOrderNumber });
      await transaction(
        db,
        async (unit) => {
          await repo.recordPush(unit.tx, id, { erpPushStatus: 'pending', erpError: null });
          await deps.queuePush(unit, id);
        },
        { events: deps.events },
      );
      return toOrderResponse(await load(p, id));
    },

    async list(p: Principal, q: OrderListQuery) {
      const { rows, total } = await repo.listOrders(db, p.entityId, { limit: q.limit, offset: q.offset, leadId: q.lead_id });
      return { data: rows.map(toOrderResponse), pagination: { limit: q.limit, offset: q.offset, total } };
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;

export function toOrderResponse(o: repo.OrderWithLines): OrderResponse {
  return {
    id: o.id,
    quote_id: o.quoteId,
    lead_id: o.leadId,
    contact_id: o.contactId,
    seller_employee_id: o.sellerEmployeeId,
    notes: o.notes,
    ...toAmountsResponse(o),
    lines: o.lines.map((l) => toLineResponse(l, o.currency)),
    erp: {
      push_status: o.erpPushStatus,
      order_number: o.erpOrderNumber,
      status: o.erpStatus,
      error: o.erpError ?? null,
      pushed_at: o.erpPushedAt?.toISOString() ?? null,
    },
    created_at: o.createdAt.toISOString(),
  };
}
