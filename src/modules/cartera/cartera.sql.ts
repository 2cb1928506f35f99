/**
 * Statements of the cartera read model (`cartera_item`, see cartera-item.table.ts): the views' page, one
 * lead's item, the export's keyset batches, the capped count, and the rebuild. Pages and the detail read
 * the stored items (`cartera_item.item`) as JSON text. Run by cartera.repository.ts.
 */
import { sql, type SQL } from 'drizzle-orm';
import { countCapLimit, isoTimestamp, pageOfItems, pageWindow, PAGE_SHAPES } from '../../db/prepared-sql.js';
import { everyShape, shapedStatement, statement } from '../../db/statement.js';
import { principalAlong } from '../identity/index.js';
import { hasEffectiveSeller, leadLabelled } from '../records/index.js';

export type CarteraKind = 'lead' | 'client';

/** Each sort, as the order of one of the read model's indexes. */
export const SORTS: Record<string, SQL> = {
  creation: sql`ci.created_at asc, ci.lead_id asc`,
  '-creation': sql`ci.created_at desc, ci.lead_id desc`,
  name: sql`ci.name asc, ci.lead_id asc`,
  '-name': sql`ci.name desc, ci.lead_id desc`,
  group: sql`ci.group_name asc, ci.lead_id asc`,
  '-group': sql`ci.group_name desc, ci.lead_id desc`,
  // Lead id: the detail and the export's keyset batches.
  id: sql`ci.lead_id`,
};

/** What of a filter the statement text depends on; values are placeholders (`entityId`, `groupId`, `leadId`, `sellerId`, `search`, `labelAny`, `labelAll`). */
export interface FilterShape {
  kind: CarteraKind;
  group: boolean;
  lead: boolean;
  seller: boolean;
  unassigned: boolean;
  search: boolean;
  /** Label filters (placeholders `labelAny`, `labelAll`, either null): records' `leadLabelled`. */
  labels: boolean;
}

/** What of a whole view statement its text depends on; besides the filter's, `offset`, `cap` and `afterId` are placeholders. */
export interface ViewShape extends FilterShape {
  sort: string;
  limit: number;
  offset: boolean;
  keyset: boolean;
  /** The capped count as a last column: with the usual cap, with a larger one (`cap`), or none. */
  total: 'cap' | 'bigCap' | null;
}

function whereOf(shape: FilterShape): SQL {
  const parts: SQL[] = [sql`ci.entity_id = ${sql.placeholder('entityId')}`, shape.kind === 'client' ? sql`ci.is_client` : sql`not ci.is_client`];
  if (shape.group) parts.push(sql`ci.group_id = ${sql.placeholder('groupId')}`);
  if (shape.lead) parts.push(sql`ci.lead_id = ${sql.placeholder('leadId')}`);
  if (shape.seller) parts.push(hasEffectiveSeller(sql`ci.lead_id`, sql`ci.entity_id`, sql.placeholder('sellerId')));
  if (shape.unassigned) parts.push(sql`ci.sellers is null`);
  if (shape.search) parts.push(sql`(ci.name ilike ${sql.placeholder('search')} or ci.group_name ilike ${sql.placeholder('search')})`);
  if (shape.labels) parts.push(leadLabelled(sql`ci.lead_id`, sql.placeholder('labelAny'), sql.placeholder('labelAll')));
  return sql.join(parts, sql` and `);
}

/**
 * A seller filter alone reads the seller's own entries of `cartera_seller_item` (one index range in the
 * creation order) instead of probing every item of the entity in the list's order: the same plan, cached
 * once, serves a seller of twenty leads and one of most of them. Other filters with it, and the name and
 * group sorts, keep the `exists` probe of the stored derivation (planned per call, see cartera.repository.ts).
 */
export function readsSellerItems(shape: FilterShape & { sort?: string }): boolean {
  return (
    shape.seller &&
    !shape.group &&
    !shape.lead &&
    !shape.unassigned &&
    !shape.search &&
    !shape.labels &&
    (shape.sort === undefined || shape.sort === 'creation' || shape.sort === '-creation')
  );
}

/** The seller's entries of the view's kind (alias `s`). */
function sellerItemsWhere(shape: FilterShape): SQL {
  return sql`s.entity_id = ${sql.placeholder('entityId')} and s.employee_id = ${sql.placeholder('sellerId')} and ${shape.kind === 'client' ? sql`s.is_client` : sql`not s.is_client`}`;
}

/** Counting subquery, capped; a seller filter alone counts the seller's index entries. */
function cappedCount(shape: FilterShape, bigCap: boolean): SQL {
  if (readsSellerItems(shape)) {
    // In the index's order, so that the cached plan reads the seller's index entries, never a scan of
    // every seller's rows filtered (the generic plan's estimate is the average seller's share).
    return sql`(select count(*)::int from (select 1 from cartera_seller_item s where ${sellerItemsWhere(shape)} order by s.created_at, s.lead_id ${countCapLimit(bigCap)}) capped)`;
  }
  return sql`(select count(*)::int from (select 1 from cartera_item ci where ${whereOf(shape)} ${countCapLimit(bigCap)}) capped)`;
}

/** The view's rows: one scan of the read model in the sort's index order (page window or keyset). */
function viewStatement(shape: ViewShape): SQL {
  const order = SORTS[shape.sort] ?? SORTS['-creation']!;
  const keyset = shape.keyset ? sql` and ci.lead_id > ${sql.placeholder('afterId')}` : sql``;
  // Pages and the detail: the stored item as text (a page sends it as it is). The export's keyset batches:
  // the sheet's cells only, the seller as the stored item has it.
  const columns = shape.keyset
    ? sql`ci.lead_id as id, ci.group_name, ci.name, ci.erp_id, ${isoTimestamp(sql`ci.created_at`)} as created_at, (ci.item -> 'seller')::text as seller, ci.contact_name`
    : sql`ci.item::text as item`;
  if (readsSellerItems(shape) && !shape.keyset) {
    // The page's lead ids from the seller's index entries in the sort's order, then their items by primary key.
    const sellerOrder = shape.sort === 'creation' ? sql`s.created_at asc, s.lead_id asc` : sql`s.created_at desc, s.lead_id desc`;
    return sql`select ${columns}
    from cartera_seller_item s join cartera_item ci on ci.lead_id = s.lead_id
    where ${sellerItemsWhere(shape)} order by ${sellerOrder} ${pageWindow(shape.limit, shape.offset)}`;
  }
  return sql`select ${columns}
    from cartera_item ci
    where ${whereOf(shape)}${keyset} order by ${order} ${pageWindow(shape.limit, shape.offset)}`;
}

const FILTER_SHAPES: FilterShape[] = everyShape({
  kind: ['lead', 'client'] as CarteraKind[],
  group: [false, true],
  lead: [false, true],
  seller: [false, true],
  unassigned: [false, true],
  search: [false, true],
  labels: [false, true],
});

/**
 * One page of a view in a sort's order as one row (`pageOfItems`): its stored items joined, with the capped
 * count unless `total` is null (a list known to reach its cap), and the caller's principal text read along
 * (`principal`, for user `userId`: see `PendingPrincipal`).
 */
export const CARTERA_PAGE = shapedStatement<ViewShape>('crm_cartera_page', {
  shapes: FILTER_SHAPES.flatMap((filter) =>
    Object.keys(SORTS).flatMap((sort) =>
      PAGE_SHAPES.flatMap((page) =>
        (page.bigCap ? (['bigCap'] as const) : (['cap', null] as const)).map((total) => ({
          ...filter,
          sort,
          limit: page.limit,
          offset: page.offset,
          keyset: false,
          total,
        })),
      ),
    ),
  ),
  build: (shape) =>
    pageOfItems(
      viewStatement(shape),
      shape.total ? cappedCount(shape, shape.total === 'bigCap') : undefined,
      principalAlong(sql.placeholder('userId'), sql.placeholder('entityId')),
    ),
});

/** One lead (or client) of a view. */
export const CARTERA_DETAIL = shapedStatement<ViewShape>('crm_cartera_detail', {
  shapes: (['lead', 'client'] as const).map((kind) => ({
    kind,
    group: false,
    lead: true,
    seller: false,
    unassigned: false,
    search: false,
    labels: false,
    sort: 'id',
    limit: 1,
    offset: false,
    keyset: false,
    total: null,
  })),
  build: viewStatement,
});

/** A batch of a view after lead id `afterId`, in id order (the export's keyset). */
export const CARTERA_BATCH = shapedStatement<ViewShape>('crm_cartera_batch', {
  shapes: FILTER_SHAPES.map((filter) => ({ ...filter, sort: 'id', limit: 500, offset: false, keyset: true, total: null })),
  build: viewStatement,
});

/** The capped count of a view alone, for a page past the end. */
export const CARTERA_COUNT = shapedStatement<FilterShape & { bigCap: boolean }>('crm_cartera_count', {
  shapes: FILTER_SHAPES.flatMap((filter) => [false, true].map((bigCap) => ({ ...filter, bigCap }))),
  build: (s) => sql`select ${cappedCount(s, s.bigCap)} as n`,
});

/** Migration 0003's `cartera_item_rebuild` of one entity (`$1`); `n`: the number of leads. */
export const CARTERA_REBUILD = statement('crm_cartera_rebuild', 'select cartera_item_rebuild($1) as n');
