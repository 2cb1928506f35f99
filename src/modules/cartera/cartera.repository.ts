/**
 * The cartera read model: leads (erp_id null) or clients (erp_id set) with their group, stored sellers
 * (`lead_seller`) and latest contact, filtered, sorted and paginated in SQL. Reads the records tables directly because it
 * is a read-only projection of them; every statement is scoped by entity.
 */
import { sql, type SQL } from 'drizzle-orm';
import { countCapLimit, isoTimestamp, pageWindow, runPrepared, type PreparedRunner } from '../records/prepared-sql.js';
import { countCapFor, likePattern } from '../../platform/http/pagination.js';
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
  /** Stored sellers of both sources: direct ones (`via: 'lead'`) first, each source in assignment order; null when none. */
  sellers: { id: number; name: string; via: 'lead' | 'group' }[] | null;
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
};
const BY_ID = { inner: sql`l.id`, outer: sql`p.id` };

function whereOf(entityId: number, f: CarteraFilter): SQL {
  const parts: SQL[] = [sql`l.entity_id = ${entityId}`, f.kind === 'client' ? sql`l.erp_id is not null` : sql`l.erp_id is null`];
  if (f.groupId !== undefined) parts.push(sql`l.group_id = ${f.groupId}`);
  if (f.leadId !== undefined) parts.push(sql`l.id = ${f.leadId}`);
  if (f.sellerId !== undefined) parts.push(hasEffectiveSeller(sql`l.id`, f.sellerId));
  if (f.unassigned) parts.push(hasNoSeller(sql`l.id`));
  if (f.search) {
    const p = likePattern(f.search);
    parts.push(sql`(l.name ilike ${p} or g.name ilike ${p})`);
  }
  return sql.join(parts, sql` and `);
}

/**
 * The view's statement: the page of leads first (`where`, `order`, `limit`/`offset` plus `keyset`), then
 * the sellers and latest contacts of all its leads at once (one index scan each over the page's ids, not
 * one subquery per row), joined back and put in order again. `detail` adds the lead's contact fields,
 * `total` a last column.
 */
function viewStatement(
  entityId: number,
  f: CarteraFilter,
  order: { inner: SQL; outer: SQL },
  window: { limit: number; offset?: number; afterId?: number },
  extra: { detail?: boolean; total?: SQL } = {},
): SQL {
  const keyset = window.afterId !== undefined ? sql` and l.id > ${window.afterId}` : sql``;
  const detail = extra.detail ? sql`, l.email, l.phone, l.tax_id` : sql``;
  return sql`with page as materialized (
      select l.id, l.group_id, g.name as group_name, l.name, l.erp_id, l.created_at${detail}
        from lead l join crm_group g on g.id = l.group_id
        where ${whereOf(entityId, f)}${keyset} order by ${order.inner} ${pageWindow(window.limit, window.offset ?? 0)}),
    sellers as materialized (
      select ls.lead_id, json_agg(json_build_object('id', e.id, 'name', e.name, 'via', ls.via) order by ls.via, ls.assignment_id) as sellers
        from lead_seller ls join employee e on e.id = ls.employee_id
        where ls.lead_id = any(array(select id from page)) group by ls.lead_id),
    contacts as materialized (
      select distinct on (c.lead_id) c.lead_id, c.id, c.name from contact c
        where c.entity_id = ${entityId} and c.lead_id = any(array(select id from page))
        order by c.lead_id, c.created_at desc, c.id desc)
    select p.id, p.group_id, p.group_name, p.name, p.erp_id, ${isoTimestamp(sql`p.created_at`)} as created_at${extra.detail ? sql`, p.email, p.phone, p.tax_id` : sql``},
      s.sellers, c.id as contact_id, c.name as contact_name${extra.total ? sql`, ${extra.total} as total` : sql``}
    from page p left join sellers s on s.lead_id = p.id left join contacts c on c.lead_id = p.id
    order by ${order.outer}`;
}

/** Counting subquery, capped at `cap` rows (the join with the group is only needed when searching its name). */
function cappedCount(entityId: number, f: CarteraFilter, cap: number): SQL {
  const join = f.search ? sql` join crm_group g on g.id = l.group_id` : sql``;
  return sql`(select count(*)::int from (select 1 from lead l${join} where ${whereOf(entityId, f)} ${countCapLimit(cap)}) capped)`;
}

/** One page of the view in `sort` order; each row carries the count of the view capped at `countCapFor(page)`. */
export async function selectCartera(
  database: PreparedRunner,
  entityId: number,
  f: CarteraFilter,
  page: { limit: number; offset: number; sort: string },
): Promise<CarteraRow[]> {
  const order = SORTS[page.sort] ?? SORTS['-creation']!;
  const total = cappedCount(entityId, f, countCapFor(page));
  return runPrepared<CarteraRow>(database, 'crm_cartera_page', viewStatement(entityId, f, order, page, { total }));
}

/** One lead (or client) of the view with its contact fields; undefined when `leadId` is not one in the entity. */
export async function selectCarteraDetail(database: PreparedRunner, entityId: number, kind: CarteraKind, leadId: number): Promise<CarteraDetailRow | undefined> {
  const rows = await runPrepared<CarteraDetailRow>(database, 'crm_cartera_detail', viewStatement(entityId, { kind, leadId }, BY_ID, { limit: 1 }, { detail: true }));
  return rows[0];
}

/** The capped count alone, for a page past the end. */
export async function countCartera(database: PreparedRunner, entityId: number, f: CarteraFilter, cap: number): Promise<number> {
  const rows = await runPrepared<{ n: number }>(database, 'crm_cartera_count', sql`select ${cappedCount(entityId, f, cap)} as n`);
  return rows[0]?.n ?? 0;
}

/** A batch of the view after lead id `afterId`, in id order (keyset), for the streaming export. */
export async function selectCarteraBatch(database: PreparedRunner, entityId: number, f: CarteraFilter, afterId: number, size: number): Promise<CarteraRow[]> {
  return runPrepared<CarteraRow>(database, 'crm_cartera_batch', viewStatement(entityId, f, BY_ID, { limit: size, afterId }));
}
