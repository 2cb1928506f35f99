/**
 * The cartera read model: leads (erp_id null) or clients (erp_id set) with their group, stored sellers
 * (`lead_seller`) and latest contact, filtered, sorted and paginated in SQL. Reads the records tables directly because it
 * is a read-only projection of them; every statement is scoped by entity.
 */
import { sql, type SQL } from 'drizzle-orm';
import { countCapLimit, isoTimestamp, pageShapeOf, pageWindow, runShaped, type PreparedRunner } from '../records/prepared-sql.js';
import { COUNT_CAP, likePattern } from '../../platform/http/pagination.js';
import { hasEffectiveSeller, hasNoSeller } from '../records/seller-derivation.sql.js';

export type CarteraKind = 'lead' | 'client';

export interface CarteraFilter {
  kind: CarteraKind;
  sellerId?: number | undefined;
  unassigned?: boolean | undefined;
  groupId?: number | undefined;
  search?: string | undefined;
  leadId?: number | undefined;
}

export interface CarteraRow {
  id: number;
  group_id: number;
  group_name: string;
  name: string;
  erp_id: string | null;
  /** ISO-8601 text, as `toISOString()` renders it. */
  created_at: string;
  /** Stored sellers of both sources as `[employee id, name, via, assignment id]`, in no order; null when none. */
  sellers: [number, string, 'lead' | 'group', number][] | null;
  /** The latest contact of the lead (null columns when it has none). */
  contact_id: number | null;
  contact_name: string | null;
  /** Capped count of the filtered view, on page queries only. */
  total?: number;
}

/** A detail row: the view's columns plus the lead's own contact fields. */
export interface CarteraDetailRow extends CarteraRow {
  email: string | null;
  phone: string | null;
  tax_id: string | null;
}

/** Each sort inside the page (`l` lead, `g` group) and again on the page's rows (`p`), which joins do not keep in order. */
const SORTS: Record<string, { inner: SQL; outer: SQL }> = {
  creation: { inner: sql`l.created_at asc, l.id asc`, outer: sql`p.created_at asc, p.id asc` },
  '-creation': { inner: sql`l.created_at desc, l.id desc`, outer: sql`p.created_at desc, p.id desc` },
  name: { inner: sql`l.name asc, l.id asc`, outer: sql`p.name asc, p.id asc` },
  '-name': { inner: sql`l.name desc, l.id desc`, outer: sql`p.name desc, p.id desc` },
  group: { inner: sql`g.name asc, l.id asc`, outer: sql`p.group_name asc, p.id asc` },
  '-group': { inner: sql`g.name desc, l.id desc`, outer: sql`p.group_name desc, p.id desc` },
  // Lead id: the detail and the export's keyset batches.
  id: { inner: sql`l.id`, outer: sql`p.id` },
};

/** What of a filter the statement text depends on; values are placeholders (`entityId`, `groupId`, `leadId`, `sellerId`, `search`). */
interface FilterShape {
  kind: CarteraKind;
  group: boolean;
  lead: boolean;
  seller: boolean;
  unassigned: boolean;
  search: boolean;
}

/** What of a whole view statement its text depends on; besides the filter's, `offset`, `cap` and `afterId` are placeholders. */
interface ViewShape extends FilterShape {
  sort: string;
  limit: number;
  offset: boolean;
  keyset: boolean;
  detail: boolean;
  /** The capped count as a last column: with the usual cap, with a larger one (`cap`), or none. */
  total: 'cap' | 'bigCap' | null;
}

function filterShapeOf(f: CarteraFilter): FilterShape {
  return {
    kind: f.kind,
    group: f.groupId !== undefined,
    lead: f.leadId !== undefined,
    seller: f.sellerId !== undefined,
    unassigned: Boolean(f.unassigned),
    search: Boolean(f.search),
  };
}

function filterValuesOf(entityId: number, f: CarteraFilter) {
  return { entityId, groupId: f.groupId, leadId: f.leadId, sellerId: f.sellerId, search: f.search ? likePattern(f.search) : undefined };
}

function whereOf(shape: FilterShape): SQL {
  const parts: SQL[] = [sql`l.entity_id = ${sql.placeholder('entityId')}`, shape.kind === 'client' ? sql`l.erp_id is not null` : sql`l.erp_id is null`];
  if (shape.group) parts.push(sql`l.group_id = ${sql.placeholder('groupId')}`);
  if (shape.lead) parts.push(sql`l.id = ${sql.placeholder('leadId')}`);
  if (shape.seller) parts.push(hasEffectiveSeller(sql`l`, sql.placeholder('sellerId')));
  if (shape.unassigned) parts.push(hasNoSeller(sql`l`));
  if (shape.search) parts.push(sql`(l.name ilike ${sql.placeholder('search')} or g.name ilike ${sql.placeholder('search')})`);
  return sql.join(parts, sql` and `);
}

/** Counting subquery, capped (the join with the group is only needed when searching its name). */
function cappedCount(shape: FilterShape, bigCap: boolean): SQL {
  const join = shape.search ? sql` join crm_group g on g.id = l.group_id` : sql``;
  return sql`(select count(*)::int from (select 1 from lead l${join} where ${whereOf(shape)} ${countCapLimit(bigCap)}) capped)`;
}

/**
 * The view's statement: the page of leads first (filters, order, page window or keyset), then the
 * sellers and latest contacts of all its leads at once (one index scan each over the page's ids, not one
 * subquery per row), joined back and put in order again. Sellers are JSON arrays, unordered: building
 * JSON objects and sorting inside the aggregate took a third of the statement's time; the service
 * orders them. `detail` adds the lead's contact fields, `total` a last column with the capped count.
 */
function viewStatement(shape: ViewShape): SQL {
  const order = SORTS[shape.sort] ?? SORTS['-creation']!;
  const keyset = shape.keyset ? sql` and l.id > ${sql.placeholder('afterId')}` : sql``;
  const detail = shape.detail ? sql`, l.email, l.phone, l.tax_id` : sql``;
  return sql`with page as materialized (
      select l.id, l.group_id, g.name as group_name, l.name, l.erp_id, l.created_at${detail}
        from lead l join crm_group g on g.id = l.group_id
        where ${whereOf(shape)}${keyset} order by ${order.inner} ${pageWindow(shape.limit, shape.offset)}),
    sellers as materialized (
      select ls.lead_id, json_agg(json_build_array(e.id, e.name, ls.via, ls.assignment_id)) as sellers
        from lead_seller ls join employee e on e.id = ls.employee_id
        where ls.lead_id = any(array(select id from page)) group by ls.lead_id),
    contacts as materialized (
      select distinct on (c.lead_id) c.lead_id, c.id, c.name from contact c
        where c.entity_id = ${sql.placeholder('entityId')} and c.lead_id = any(array(select id from page))
        order by c.lead_id, c.created_at desc, c.id desc)
    select p.id, p.group_id, p.group_name, p.name, p.erp_id, ${isoTimestamp(sql`p.created_at`)} as created_at${shape.detail ? sql`, p.email, p.phone, p.tax_id` : sql``},
      s.sellers, c.id as contact_id, c.name as contact_name${shape.total ? sql`, ${cappedCount(shape, shape.total === 'bigCap')} as total` : sql``}
    from page p left join sellers s on s.lead_id = p.id left join contacts c on c.lead_id = p.id
    order by ${order.outer}`;
}

/** Seller filters are planned per call: the best plan depends on the seller's share of the leads (see `RunOptions`). */
const optionsOf = (shape: FilterShape) => ({ planEachCall: shape.seller });

/** One page of the view in `sort` order; each row carries the count of the view capped at `countCapFor(page)`. */
export async function selectCartera(
  database: PreparedRunner,
  entityId: number,
  f: CarteraFilter,
  page: { limit: number; offset: number; sort: string },
): Promise<CarteraRow[]> {
  const window = pageShapeOf(page);
  const filter = filterShapeOf(f);
  const shape: ViewShape = {
    ...filter,
    sort: page.sort in SORTS ? page.sort : '-creation',
    limit: window.shape.limit,
    offset: window.shape.offset,
    keyset: false,
    detail: false,
    total: window.shape.bigCap ? 'bigCap' : 'cap',
  };
  return runShaped<CarteraRow, ViewShape>(database, 'crm_cartera_page', shape, viewStatement, { ...filterValuesOf(entityId, f), ...window.values }, optionsOf(filter));
}

/** One lead (or client) of the view with its contact fields; undefined when `leadId` is not one in the entity. */
export async function selectCarteraDetail(database: PreparedRunner, entityId: number, kind: CarteraKind, leadId: number): Promise<CarteraDetailRow | undefined> {
  const filter = filterShapeOf({ kind, leadId });
  const shape: ViewShape = { ...filter, sort: 'id', limit: 1, offset: false, keyset: false, detail: true, total: null };
  const rows = await runShaped<CarteraDetailRow, ViewShape>(database, 'crm_cartera_detail', shape, viewStatement, filterValuesOf(entityId, { kind, leadId }));
  return rows[0];
}

/** The capped count alone, for a page past the end. */
export async function countCartera(database: PreparedRunner, entityId: number, f: CarteraFilter, cap: number): Promise<number> {
  const filter = filterShapeOf(f);
  const bigCap = cap !== COUNT_CAP;
  const rows = await runShaped<{ n: number }, FilterShape & { bigCap: boolean }>(
    database,
    'crm_cartera_count',
    { ...filter, bigCap },
    (s) => sql`select ${cappedCount(s, s.bigCap)} as n`,
    { ...filterValuesOf(entityId, f), cap },
    optionsOf(filter),
  );
  return rows[0]?.n ?? 0;
}

/** A batch of the view after lead id `afterId`, in id order (keyset), for the streaming export. */
export async function selectCarteraBatch(database: PreparedRunner, entityId: number, f: CarteraFilter, afterId: number, size: number): Promise<CarteraRow[]> {
  const filter = filterShapeOf(f);
  const shape: ViewShape = { ...filter, sort: 'id', limit: size, offset: false, keyset: true, detail: false, total: null };
  return runShaped<CarteraRow, ViewShape>(database, 'crm_cartera_batch', shape, viewStatement, { ...filterValuesOf(entityId, f), afterId }, optionsOf(filter));
}
