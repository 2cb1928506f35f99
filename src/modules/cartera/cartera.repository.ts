/**
 * Reads of the cartera read model (`cartera_item`, one row per lead, kept by database triggers: see
 * cartera-item.table.ts): leads (erp_id null) or clients (erp_id set) filtered, sorted and paginated in
 * SQL. A page is one index range scan of the entity's rows with no joins; every statement is scoped by
 * entity.
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { countCapLimit, isoTimestamp, pageShapeOf, pageWindow, runShaped, type PreparedRunner } from '../../db/prepared-sql.js';
import { COUNT_CAP, likePattern } from '../../platform/http/pagination.js';
import { hasEffectiveSeller } from '../records/index.js';
import type { CarteraItemSeller } from './cartera-item.table.js';

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
  /** Both sources of the derivation, each in assignment order; null when the lead has no seller. */
  sellers: { direct: CarteraItemSeller[]; inherited: CarteraItemSeller[] } | null;
  /** The latest contact of the lead (null columns when it has none). */
  contact_id: number | null;
  contact_name: string | null;
  /** The lead's conversation with the latest message (null columns when it has none); time as ISO-8601 text. */
  conversation_id: number | null;
  interaction_channel: string | null;
  interaction_at: string | null;
  /** Capped count of the filtered view, on page queries only. */
  total?: number;
}


/** Each sort, as the order of one of the read model's indexes. */
const SORTS: Record<string, SQL> = {
  creation: sql`ci.created_at asc, ci.lead_id asc`,
  '-creation': sql`ci.created_at desc, ci.lead_id desc`,
  name: sql`ci.name asc, ci.lead_id asc`,
  '-name': sql`ci.name desc, ci.lead_id desc`,
  group: sql`ci.group_name asc, ci.lead_id asc`,
  '-group': sql`ci.group_name desc, ci.lead_id desc`,
  // Lead id: the detail and the export's keyset batches.
  id: sql`ci.lead_id`,
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
  const parts: SQL[] = [sql`ci.entity_id = ${sql.placeholder('entityId')}`, shape.kind === 'client' ? sql`ci.is_client` : sql`not ci.is_client`];
  if (shape.group) parts.push(sql`ci.group_id = ${sql.placeholder('groupId')}`);
  if (shape.lead) parts.push(sql`ci.lead_id = ${sql.placeholder('leadId')}`);
  if (shape.seller) parts.push(hasEffectiveSeller(sql`ci.lead_id`, sql`ci.entity_id`, sql.placeholder('sellerId')));
  if (shape.unassigned) parts.push(sql`ci.sellers is null`);
  if (shape.search) parts.push(sql`(ci.name ilike ${sql.placeholder('search')} or ci.group_name ilike ${sql.placeholder('search')})`);
  return sql.join(parts, sql` and `);
}

/** Counting subquery, capped. */
function cappedCount(shape: FilterShape, bigCap: boolean): SQL {
  return sql`(select count(*)::int from (select 1 from cartera_item ci where ${whereOf(shape)} ${countCapLimit(bigCap)}) capped)`;
}

/**
 * The view's statement: one scan of the read model in the sort's index order (page window or keyset).
 * `total` adds a last column with the capped count.
 */
function viewStatement(shape: ViewShape): SQL {
  const order = SORTS[shape.sort] ?? SORTS['-creation']!;
  const keyset = shape.keyset ? sql` and ci.lead_id > ${sql.placeholder('afterId')}` : sql``;
  return sql`select ci.lead_id as id, ci.group_id, ci.group_name, ci.name, ci.erp_id, ${isoTimestamp(sql`ci.created_at`)} as created_at,
      ci.sellers, ci.contact_id, ci.contact_name, ci.conversation_id, ci.interaction_channel, ${isoTimestamp(sql`ci.interaction_at`)} as interaction_at${shape.total ? sql`, ${cappedCount(shape, shape.total === 'bigCap')} as total` : sql``}
    from cartera_item ci
    where ${whereOf(shape)}${keyset} order by ${order} ${pageWindow(shape.limit, shape.offset)}`;
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
    total: window.shape.bigCap ? 'bigCap' : 'cap',
  };
  return runShaped<CarteraRow, ViewShape>(database, 'crm_cartera_page', shape, viewStatement, { ...filterValuesOf(entityId, f), ...window.values }, optionsOf(filter));
}

/** One lead (or client) of the view; undefined when `leadId` is not one in the entity. */
export async function selectCarteraDetail(database: PreparedRunner, entityId: number, kind: CarteraKind, leadId: number): Promise<CarteraRow | undefined> {
  const filter = filterShapeOf({ kind, leadId });
  const shape: ViewShape = { ...filter, sort: 'id', limit: 1, offset: false, keyset: false, total: null };
  const rows = await runShaped<CarteraRow, ViewShape>(database, 'crm_cartera_detail', shape, viewStatement, filterValuesOf(entityId, { kind, leadId }));
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
  const shape: ViewShape = { ...filter, sort: 'id', limit: size, offset: false, keyset: true, total: null };
  return runShaped<CarteraRow, ViewShape>(database, 'crm_cartera_batch', shape, viewStatement, { ...filterValuesOf(entityId, f), afterId }, optionsOf(filter));
}

/**
 * Derives every read-model row of the entity's leads again from the source tables (migration 0003's
 * `cartera_item_rebuild`, which runs the triggers' `cartera_item_refresh`), in one statement; returns the
 * number of leads. Only needed after writes that bypassed triggers (a restore with triggers disabled,
 * `session_replication_role = replica`).
 */
export async function rebuildCarteraItems(db: Db, entityId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select cartera_item_rebuild(${entityId}) as n`);
  return row?.n ?? 0;
}
