/**
 * Quotes: create with lines priced in one currency, change drafts, move through the state machine
 * (quote-state.ts); approving or rejecting publishes `quote.approved` / `quote.rejected` in the same
 * transaction. Errors: 400 naming the field, 403 `seller_change_forbidden`, 404 for another entity's
 * quote, 409 `invalid_transition` / `quote_not_editable`.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import { notFound } from '../../platform/errors.js';
import { transaction } from '../../platform/transactions/transaction.js';
import { assertCurrency, priceLines, toAmountsResponse, toLineResponse } from './document-lines.js';
import { partiesOf, sellerFor, type PartyLookups } from './commerce-parties.js';
import { assertEditable, effectiveStatus, transition, type QuoteAction } from './quote-state.js';
import * as repo from './quote.repository.js';
import type { QuoteCreateBody, QuoteListQuery, QuoteResponse, QuoteUpdateBody } from './quote.schemas.js';

export function createQuoteService(deps: {
  db: Db;
  events: EventBus;
  lookups: PartyLookups;
  /** Today (YYYY-MM-DD) in the entity's time zone; read before transactions. */
  today: (entityId: number) => Promise<string>;
}) {
  const { db } = deps;
  const respond = async (q: repo.QuoteWithLines): Promise<QuoteResponse> => toQuoteResponse(q, await deps.today(q.entityId));

  async function load(p: Principal, id: number, via: Db = db, lock = false) {
    const q = await repo.findQuote(via, p.entityId, id, lock);
    if (!q) throw notFound('quote', id);
    return q;
  }

  return {
    async create(p: Principal, body: QuoteCreateBody): Promise<QuoteResponse> {
      assertCurrency(body.currency);
      const priced = priceLines(body.lines, body.currency);
      const parties = await partiesOf(p.entityId, body.lead_id, body.contact_id, deps.lookups);
      const seller = await sellerFor(p, body.seller_employee_id, deps.lookups);
      const id = await transaction(
        db,
        async ({ tx }) => {
          const row = await repo.insertQuote(
            tx,
            {
              entityId: p.entityId,
              leadId: body.lead_id,
              contactId: parties.contactId,
              sellerEmployeeId: seller,
              currency: body.currency,
              validUntil: body.valid_until,
              notes: body.notes ?? '',
              createdByEmployeeId: p.employeeId,
              ...priced.amounts,
            },
            priced.lines,
          );
          return row.id;
        },
        { events: deps.events },
      );
      return respond(await load(p, id));
    },

    async get(p: Principal, id: number): Promise<QuoteResponse> {
      return respond(await load(p, id));
    },

    async list(p: Principal, q: QuoteListQuery) {
      const today = await deps.today(p.entityId);
      const { rows, total } = await repo.listQuotes(db, p.entityId, { limit: q.limit, offset: q.offset, leadId: q.lead_id, status: q.status, today });
      return { data: rows.map((r) => toQuoteResponse(r, today)), pagination: { limit: q.limit, offset: q.offset, total } };
    },

    async update(p: Principal, id: number, body: QuoteUpdateBody): Promise<QuoteResponse> {
      // Other modules are asked before the transaction (the embedded database is one session); the lead never changes.
      const before = await load(p, id);
      const parties = body.contact_id !== undefined ? await partiesOf(p.entityId, before.leadId, body.contact_id, deps.lookups) : undefined;
      const seller = body.seller_employee_id !== undefined ? await sellerFor(p, body.seller_employee_id, deps.lookups) : undefined;
      const priced = body.lines ? priceLines(body.lines, before.currency) : undefined;
      const today = await deps.today(p.entityId);
      await transaction(
        db,
        async ({ tx }) => {
          const q = await load(p, id, tx, true);
          assertEditable(effectiveStatus(q.status, q.validUntil, today));
          if (priced) await repo.replaceLines(tx, p.entityId, id, priced.lines);
          await repo.updateQuote(tx, id, {
            ...(parties ? { contactId: parties.contactId } : {}),
            ...(seller !== undefined ? { sellerEmployeeId: seller } : {}),
            ...(body.valid_until !== undefined ? { validUntil: body.valid_until } : {}),
            ...(body.notes !== undefined ? { notes: body.notes } : {}),
            ...(priced ? priced.amounts : {}),
          });
        },
        { events: deps.events },
      );
      return respond(await load(p, id));
    },

    /** `send`, `approve`, `reject`; an open quote past its validity is stored as expired and refuses every move. */
    async move(p: Principal, id: number, action: QuoteAction): Promise<QuoteResponse> {
      const groupId = (await deps.lookups.lead(p.entityId, (await load(p, id)).leadId))?.groupId ?? 0;
      const today = await deps.today(p.entityId);
      const expired = await transaction(
        db,
        async ({ tx, events }) => {
          const q = await load(p, id, tx, true);
          const current = effectiveStatus(q.status, q.validUntil, today);
          if (current === 'expired' && q.status !== 'expired') {
            await repo.updateQuote(tx, id, { status: 'expired' });
            return true;
          }
          const next = transition(current, action);
          const at = new Date();
          await repo.updateQuote(tx, id, { status: next, ...(next === 'sent' ? { sentAt: at } : { decidedAt: at, decidedByEmployeeId: p.employeeId }) });
          if (next === 'approved' || next === 'rejected') {
            events.domainEvent(next === 'approved' ? 'quote.approved' : 'quote.rejected', {
              entityId: p.entityId,
              quoteId: id,
              leadId: q.leadId,
              groupId,
              contactId: q.contactId,
              sellerEmployeeId: q.sellerEmployeeId,
              currency: q.currency,
              totalMinor: q.totalMinor,
              changedByEmployeeId: p.employeeId,
              occurredAt: at.toISOString(),
            });
          }
          return false;
        },
        { events: deps.events },
      );
      // Recorded as expired, then refused like any move out of expired.
      if (expired) transition('expired', action);
      return respond(await load(p, id));
    },

    /** The quote for an order (orders.service): loaded in `tx`, with its effective status on `today`. */
    async forOrder(tx: Db, p: Principal, id: number, today: string) {
      const q = await load(p, id, tx, true);
      return { quote: q, status: effectiveStatus(q.status, q.validUntil, today) };
    },

    /** Today in the entity's zone (read it before a transaction that calls `forOrder`). */
    today: (entityId: number) => deps.today(entityId),
  };
}

export type QuoteService = ReturnType<typeof createQuoteService>;

function toQuoteResponse(q: repo.QuoteWithLines, today: string): QuoteResponse {
  return {
    id: q.id,
    lead_id: q.leadId,
    contact_id: q.contactId,
    seller_employee_id: q.sellerEmployeeId,
    status: effectiveStatus(q.status, q.validUntil, today),
    valid_until: q.validUntil,
    notes: q.notes,
    ...toAmountsResponse(q),
    lines: q.lines.map((l) => toLineResponse(l, q.currency)),
    order_id: q.orderId,
    sent_at: q.sentAt?.toISOString() ?? null,
    decided_at: q.decidedAt?.toISOString() ?? null,
    created_at: q.createdAt.toISOString(),
    updated_at: q.updatedAt.toISOString(),
  };
}
