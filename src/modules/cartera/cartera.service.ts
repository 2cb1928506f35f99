/**
 * The cartera (portfolio) view (SPEC "Cartera (portfolio) view item"). `seller` is derived: the lead's
 * direct assignments win over those inherited from its group; both sources are returned. `contact` is
 * the latest contact of the lead, `interaction` its conversation with the latest message.
 * `lastPurchase`, `frequency` and `agenda` are data this service does not hold yet and are null (never
 * invented).
 */
import type { PreparedRunner } from '../../db/prepared-sql.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { createCappedCounts } from '../../db/paging.js';
import { notFound } from '../../platform/errors.js';
import { countCapFor, type Page, toPage } from '../../platform/http/pagination.js';
import type { LeadService } from '../records/index.js';
import { countCartera, selectCartera, selectCarteraDetail, type CarteraFilter, type CarteraKind, type CarteraRow } from './cartera.repository.js';
import type { CarteraDetailPatch, CarteraListQuery } from './cartera.schemas.js';

interface CarteraItemBase {
  id: number;
  groupId: number;
  group: string;
  erpId: string | null;
  creation: string;
  seller: { id: number; name: string; source: 'lead' | 'group' } | null;
  sellers: { direct: { id: number; name: string }[]; inherited: { id: number; name: string }[] };
  contact: { id: number; name: string } | null;
  lastPurchase: null;
  frequency: null;
  agenda: null;
  interaction: { conversationId: number; channelTypeCode: string; lastMessageAt: string } | null;
}

/** The SPEC item: `lead` (leads list) or `client` (clients list) holds the record's name. */
export type CarteraItem<K extends CarteraKind = CarteraKind> = CarteraItemBase & (K extends 'lead' ? { lead: string } : { client: string });

export type CarteraDetail<K extends CarteraKind = CarteraKind> = CarteraItem<K> & {
  email: string | null;
  phone: string | null;
  taxId: string | null;
};

/** Maps a view row to the SPEC item; the effective seller is the first direct one, else the first inherited one (by assignment). */
export function toCarteraItem<K extends CarteraKind>(kind: K, r: CarteraRow): CarteraItem<K> {
  const sellers = r.sellers ?? { direct: [], inherited: [] };
  const direct = sellers.direct[0];
  const first = direct ?? sellers.inherited[0];
  const item: CarteraItemBase & Partial<Record<CarteraKind, string>> = {
    id: r.id,
    groupId: r.group_id,
    group: r.group_name,
    erpId: r.erp_id,
    creation: r.created_at,
    seller: first ? { id: first.id, name: first.name, source: direct ? 'lead' : 'group' } : null,
    sellers,
    contact: r.contact_id === null ? null : { id: r.contact_id, name: r.contact_name! },
    lastPurchase: null,
    frequency: null,
    agenda: null,
    interaction:
      r.conversation_id === null ? null : { conversationId: r.conversation_id, channelTypeCode: r.interaction_channel!, lastMessageAt: r.interaction_at! },
  };
  // The name goes under the list's own key (SPEC "client/lead").
  item[kind] = r.name;
  return item as CarteraItem<K>;
}

export function filterOf(kind: CarteraKind, q: Omit<Partial<CarteraListQuery>, 'limit' | 'offset' | 'sort'>): CarteraFilter {
  return { kind, sellerId: q.seller_id, unassigned: q.unassigned, groupId: q.group_id, search: q.search };
}

/** `database` runs the view's statements as named prepared statements. */
export function createCarteraService(deps: { database: PreparedRunner; leads: LeadService }) {
  const { database, leads } = deps;
  const cappedCounts = createCappedCounts();

  async function detail<K extends CarteraKind>(caller: Principal, kind: K, id: number): Promise<CarteraDetail<K>> {
    const row = await selectCarteraDetail(database, caller.entityId, kind, id);
    if (!row) throw notFound(kind, id);
    // The lead's own contact fields are records' data: read through its service.
    const own = await leads.get(caller, id);
    return { ...toCarteraItem(kind, row), email: own.email, phone: own.phone, taxId: own.tax_id };
  }

  return {
    async list<K extends CarteraKind>(caller: Principal, kind: K, q: CarteraListQuery): Promise<Page<CarteraItem<K>>> {
      const filter = filterOf(kind, q);
      const page = { limit: q.limit, offset: q.offset, sort: q.sort ?? '-creation' };
      const { rows, total, capped } = await cappedCounts.page({
        entityId: caller.entityId,
        filter,
        page,
        read: (counted) => selectCartera(database, caller.entityId, filter, page, counted),
        count: () => countCartera(database, caller.entityId, filter, countCapFor(page)),
      });
      return toPage(q, rows, total, (r) => toCarteraItem(kind, r), capped);
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
