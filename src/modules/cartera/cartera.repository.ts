/**
 * The cartera read model: leads (erp_id null) or clients (erp_id set) with their group, stored sellers
 * (`lead_seller`) and latest contact, filtered, sorted and paginated in SQL. Reads the records tables directly because it
 * is a read-only projection of them; every statement is scoped by entity.
 */
import { sql, type SQL } from 'drizzle-orm';
import { isoTimestamp, runPrepared, type PreparedRunner } from '../records/prepared-sql.js';
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
  email: string | null;
  phone: string | null;
  tax_id: string | null;
  /** ISO-8601 text, as `toISOString()` renders it. */
  created_at: string;
  /** Stored sellers of both sources: direct ones (`via: 'lead'`) first, each source in assignment order; null when none. */
  sellers: { id: number; name: string; via: 'lead' | 'group' }[] | null;
  contact: { id: number; name: string } | null;
  /** Capped count of the filtered view, on page queries only. */
  total?: number;
}

const SORTS: Record<string, SQL> = {
  creation: sql`l.created_at asc, l.id asc`,
  '-creation': sql`l.created_at desc, l.id desc`,
  name: sql`l.name asc, l.id asc`,
  '-name': sql`l.name desc, l.id desc`,
  group: sql`g.name asc, l.id asc`,
  '-group': sql`g.name desc, l.id desc`,
};

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

const SELECT = sql`select l.id, l.group_id, g.name as group_name, l.name, l.erp_id, l.email, l.phone, l.tax_id, ${isoTimestamp(sql`l.created_at`)} as created_at,
  (select json_agg(json_build_object('id', e.id, 'name', e.name, 'via', ls.via) order by ls.via, ls.assignment_id)
     from lead_seller ls join employee e on e.id = ls.employee_id where ls.lead_id = l.id) as sellers,
  (select json_build_object('id', c.id, 'name', c.name)
     from contact c where c.entity_id = l.entity_id and c.lead_id = l.id order by c.created_at desc, c.id desc limit 1) as contact
  from lead l join crm_group g on g.id = l.group_id`;

/** Counting subquery, capped at `cap` rows (the join with the group is only needed when searching its name). */
function cappedCount(entityId: number, f: CarteraFilter, cap: number): SQL {
  const join = f.search ? sql` join crm_group g on g.id = l.group_id` : sql``;
  return sql`(select count(*)::int from (select 1 from lead l${join} where ${whereOf(entityId, f)} limit ${cap}) capped)`;
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
  return runPrepared<CarteraRow>(
    database,
    'crm_cartera_page',
    sql`select page.*, ${total} as total from (${SELECT} where ${whereOf(entityId, f)} order by ${order} limit ${page.limit} offset ${page.offset}) page`,
  );
}

/** The capped count alone, for a page past the end. */
export async function countCartera(database: PreparedRunner, entityId: number, f: CarteraFilter, cap: number): Promise<number> {
  const rows = await runPrepared<{ n: number }>(database, 'crm_cartera_count', sql`select ${cappedCount(entityId, f, cap)} as n`);
  return rows[0]?.n ?? 0;
}

/** A batch of the view after lead id `afterId`, in id order (keyset), for the streaming export. */
export async function selectCarteraBatch(database: PreparedRunner, entityId: number, f: CarteraFilter, afterId: number, size: number): Promise<CarteraRow[]> {
  return runPrepared<CarteraRow>(database, 'crm_cartera_batch', sql`${SELECT} where ${whereOf(entityId, f)} and l.id > ${afterId} order by l.id limit ${size}`);
}
