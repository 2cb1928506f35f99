/**
 * Reads of the cartera read model (`cartera_item`, one row per lead, kept by database triggers: see
 * cartera-item.table.ts): leads (erp_id null) or clients (erp_id set) filtered, sorted and paginated in
 * SQL. A page is one index range scan of the entity's rows with no joins; every statement is scoped by
 * entity.
 */
import type { Db } from '../../db/client.js';
import type { PageItems, PageReader } from '../../db/paging.js';
import { pageShapeOf, runShaped, type PreparedRunner } from '../../db/prepared-sql.js';
import { runStatementIn } from '../../db/statement.js';
import { COUNT_CAP, likePattern } from '../../platform/http/pagination.js';
import type { CarteraItem } from './cartera.schemas.js';
import {
  CARTERA_BATCH,
  CARTERA_COUNT,
  CARTERA_DETAIL,
  CARTERA_PAGE,
  CARTERA_REBUILD,
  readsSellerItems,
  SORTS,
  type CarteraKind,
  type FilterShape,
  type ViewShape,
} from './cartera.sql.js';

export type { CarteraKind } from './cartera.sql.js';

export interface CarteraFilter {
  kind: CarteraKind;
  sellerId?: number | undefined;
  unassigned?: boolean | undefined;
  groupId?: number | undefined;
  search?: string | undefined;
  leadId?: number | undefined;
  labelAny?: readonly number[] | undefined;
  labelAll?: readonly number[] | undefined;
}

/** The detail's row: the stored item as JSON text (`cartera_item.item`, a `CarteraItem`). */
interface CarteraItemText {
  item: string;
}

function filterShapeOf(f: CarteraFilter): FilterShape {
  return {
    kind: f.kind,
    group: f.groupId !== undefined,
    lead: f.leadId !== undefined,
    seller: f.sellerId !== undefined,
    unassigned: Boolean(f.unassigned),
    search: Boolean(f.search),
    labels: f.labelAny !== undefined || f.labelAll !== undefined,
  };
}

function filterValuesOf(entityId: number, f: CarteraFilter) {
  return {
    entityId,
    groupId: f.groupId,
    leadId: f.leadId,
    sellerId: f.sellerId,
    search: f.search ? likePattern(f.search) : undefined,
    labelAny: f.labelAny ?? null,
    labelAll: f.labelAll ?? null,
  };
}

/**
 * Seller filters that probe the stored derivation are planned per call: the best plan depends on the
 * seller's share of the leads (see `RunOptions`). A seller filter alone reads the seller's index entries
 * (`readsSellerItems`), one plan for every seller: a cached generic plan.
 */
const optionsOf = (shape: FilterShape & { sort?: string }) => ({ planEachCall: shape.seller && !readsSellerItems(shape) });

/**
 * One page of the view in `sort` order as one row: its items' stored JSON texts joined; with `counted`, the
 * count of the view capped at `countCapFor(page)` as `total`; and the reader's principal text as `principal`,
 * read along. Scoped by `reader.entityId`.
 */
export async function selectCartera(
  database: PreparedRunner,
  reader: PageReader,
  f: CarteraFilter,
  page: { limit: number; offset: number; sort: string },
  counted: boolean,
): Promise<PageItems> {
  const window = pageShapeOf(page);
  const filter = filterShapeOf(f);
  const shape: ViewShape = {
    ...filter,
    sort: page.sort in SORTS ? page.sort : '-creation',
    limit: window.shape.limit,
    offset: window.shape.offset,
    keyset: false,
    total: !counted ? null : window.shape.bigCap ? 'bigCap' : 'cap',
  };
  const values = { ...filterValuesOf(reader.entityId, f), ...window.values, userId: reader.userId };
  const [row] = await runShaped<PageItems, ViewShape>(database, CARTERA_PAGE, shape, values, optionsOf(shape));
  return row!;
}

/** One lead (or client) of the view; undefined when `leadId` is not one in the entity. */
export async function selectCarteraDetail<K extends CarteraKind>(
  database: PreparedRunner,
  entityId: number,
  kind: K,
  leadId: number,
): Promise<CarteraItem<K> | undefined> {
  const filter = filterShapeOf({ kind, leadId });
  const shape: ViewShape = { ...filter, sort: 'id', limit: 1, offset: false, keyset: false, total: null };
  const rows = await runShaped<CarteraItemText, ViewShape>(database, CARTERA_DETAIL, shape, filterValuesOf(entityId, { kind, leadId }));
  return rows[0] && (JSON.parse(rows[0].item) as CarteraItem<K>);
}

/** The capped count alone, for a page past the end. */
export async function countCartera(database: PreparedRunner, entityId: number, f: CarteraFilter, cap: number): Promise<number> {
  const filter = filterShapeOf(f);
  const bigCap = cap !== COUNT_CAP;
  const rows = await runShaped<{ n: number }, FilterShape & { bigCap: boolean }>(
    database,
    CARTERA_COUNT,
    { ...filter, bigCap },
    { ...filterValuesOf(entityId, f), cap },
    optionsOf(filter),
  );
  return rows[0]?.n ?? 0;
}

/** A row of the export: the sheet's cells (`created_at` ISO-8601 text; `seller` the item's, as JSON text or null). */
export interface CarteraSheetRow {
  id: number;
  group_name: string;
  name: string;
  erp_id: string | null;
  created_at: string;
  seller: string | null;
  contact_name: string | null;
}

/** A batch of the view after lead id `afterId`, in id order (keyset), for the streaming export. */
export async function selectCarteraBatch(
  database: PreparedRunner,
  entityId: number,
  f: CarteraFilter,
  afterId: number,
  size: number,
): Promise<CarteraSheetRow[]> {
  const filter = filterShapeOf(f);
  const shape: ViewShape = { ...filter, sort: 'id', limit: size, offset: false, keyset: true, total: null };
  return runShaped<CarteraSheetRow, ViewShape>(database, CARTERA_BATCH, shape, { ...filterValuesOf(entityId, f), afterId }, optionsOf(shape));
}

/**
 * Derives every read-model row of the entity's leads again from the source tables (migration 0003's
 * `cartera_item_rebuild`, which runs the triggers' `cartera_item_refresh`), in one statement; returns the
 * number of leads. Only needed after writes that bypassed triggers (a restore with triggers disabled,
 * `session_replication_role = replica`).
 */
export async function rebuildCarteraItems(db: Db, entityId: number): Promise<number> {
  const [row] = await runStatementIn<{ n: number }>(db, CARTERA_REBUILD, [entityId]);
  return row?.n ?? 0;
}
