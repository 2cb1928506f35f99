/**
 * The cartera (portfolio) view (SPEC "Cartera (portfolio) view item"). `seller` is derived: the lead's
 * direct assignments win over those inherited from its group; both sources are returned. `contact` is
 * the latest contact of the lead, `interaction` its conversation with the latest message.
 * `lastPurchase`, `frequency` and `agenda` are data this service does not hold yet and are null (never
 * invented). Items are read as the read model stores them (`cartera_item.item`, derived in the database by
 * migration 0024): a list answers them as JSON text, unparsed.
 */
import type { PreparedRunner } from '../../db/prepared-sql.js';
import type { PendingPrincipal, Principal } from '../../platform/auth/authenticator.js';
import { createCappedCounts } from '../../db/paging.js';
import { notFound } from '../../platform/errors.js';
import { countCapFor, pageText } from '../../platform/http/pagination.js';
import type { LeadService } from '../records/index.js';
import { actorOf, type AuditTrail } from '../audit/index.js';
import type { Db } from '../../db/client.js';
import { countCartera, selectCartera, selectCarteraDetail, type CarteraFilter, type CarteraKind } from './cartera.repository.js';
import type { CarteraDetailPatch, CarteraItem, CarteraListQuery } from './cartera.schemas.js';

export type CarteraDetail<K extends CarteraKind = CarteraKind> = CarteraItem<K> & {
  email: string | null;
  phone: string | null;
  taxId: string | null;
};

export function filterOf(kind: CarteraKind, q: Omit<Partial<CarteraListQuery>, 'limit' | 'offset' | 'sort'>): CarteraFilter {
  return { kind, sellerId: q.seller_id, unassigned: q.unassigned, groupId: q.group_id, search: q.search, labelAny: q.label, labelAll: q.label_all };
}

/** `database` runs the view's statements as named prepared statements. */
/** `audit` records each export of the portfolio (issue 54). */
export function createCarteraService(deps: { database: PreparedRunner; leads: LeadService; audit: AuditTrail; db: Db }) {
  const { database, leads } = deps;
  const cappedCounts = createCappedCounts();

  async function detail<K extends CarteraKind>(caller: Principal, kind: K, id: number): Promise<CarteraDetail<K>> {
    const item = await selectCarteraDetail(database, caller.entityId, kind, id);
    if (!item) throw notFound(kind, id);
    // The lead's own contact fields are records' data: read through its service.
    const own = await leads.get(caller, id);
    return { ...item, email: own.email, phone: own.phone, taxId: own.tax_id };
  }

  return {
    /** Records an export of the portfolio (its kind and filters) before it is streamed: one audit entry. */
    async exporting(caller: Principal, kind: CarteraKind, filters: Record<string, unknown>): Promise<void> {
      await deps.audit.record(deps.db, {
        entityId: caller.entityId,
        actor: actorOf(caller),
        action: 'cartera.export',
        details: { kind, format: 'xlsx', filters },
      });
    },
    /**
     * The page of `CarteraItem<K>` as its response body (`{ data, pagination }`, JSON text). The page
     * statement reads the caller's principal along, and nothing of the page is answered before it is
     * confirmed (401/403 otherwise).
     */
    async list(caller: PendingPrincipal, kind: CarteraKind, q: CarteraListQuery): Promise<string> {
      const filter = filterOf(kind, q);
      const page = { limit: q.limit, offset: q.offset, sort: q.sort ?? '-creation' };
      const { items, total, capped } = await cappedCounts.page({
        entityId: caller.entityId,
        filter,
        page,
        read: async (counted) => {
          const read = await selectCartera(database, caller, filter, page, counted);
          await caller.confirm(read.principal ?? null);
          return read;
        },
        count: () => countCartera(database, caller.entityId, filter, countCapFor(page)),
      });
      return pageText(q, items, total, capped);
    },

    /** 404 when the id is not a lead (resp. client) of the caller's entity. */
    detail,

    /** Edits the lead's own fields through the records service; kind cannot change here. */
    async update<K extends CarteraKind>(caller: Principal, kind: K, id: number, body: CarteraDetailPatch): Promise<CarteraDetail<K>> {
      await detail(caller, kind, id);
      await leads.update(caller, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.email !== undefined ? { email: body.email } : {}),
        ...(body.phone !== undefined ? { phone: body.phone } : {}),
        ...(body.taxId !== undefined ? { tax_id: body.taxId } : {}),
      });
      return detail(caller, kind, id);
    },
  };
}
export type CarteraService = ReturnType<typeof createCarteraService>;
