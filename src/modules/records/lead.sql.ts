/**
 * Statements of the leads list (GET /leads), run by lead.repository.ts: one page as one row, with the
 * capped count unless the list is known to reach its cap (`createCappedCounts`), and the capped count alone
 * for a list that stopped reaching it.
 */
import { sql, type SQL } from 'drizzle-orm';
import { countCapLimit, pageOfItems, pageWindow, PAGE_SHAPES, type PageShape } from '../../db/prepared-sql.js';
import { everyShape, shapedStatement } from '../../db/statement.js';
import { principalAlong } from '../identity/index.js';
import { hasEffectiveSeller } from './seller-derivation.sql.js';
import { recordLabelIdsJson, recordLabelled } from './label-filter.sql.js';

/** What of a filter the list statement's text depends on; values are placeholders (`entityId`, `groupId`, `search`, `employeeId`). */
interface LeadListShape {
  group: boolean;
  kind: 'lead' | 'client' | null;
  search: boolean;
  employee: boolean;
  /** `label` (any of, placeholder `labelAny`) and `label_all` (placeholder `labelAll`), either null. */
  labels: boolean;
}

function listWhere(shape: LeadListShape): SQL {
  const parts: SQL[] = [sql`l.entity_id = ${sql.placeholder('entityId')}`];
  if (shape.group) parts.push(sql`l.group_id = ${sql.placeholder('groupId')}`);
  if (shape.kind === 'client') parts.push(sql`l.erp_id is not null`);
  if (shape.kind === 'lead') parts.push(sql`l.erp_id is null`);
  if (shape.search)
    parts.push(sql`(l.name ilike ${sql.placeholder('search')} or l.email ilike ${sql.placeholder('search')} or l.erp_id ilike ${sql.placeholder('search')})`);
  if (shape.employee) parts.push(hasEffectiveSeller(sql`l.id`, sql`l.entity_id`, sql.placeholder('employeeId')));
  if (shape.labels) parts.push(recordLabelled('lead', sql`l.id`, sql.placeholder('labelAny'), sql.placeholder('labelAll')));
  return sql.join(parts, sql` and `);
}

const countedLeads = (shape: LeadListShape & PageShape) =>
  sql`(select count(*)::int from (select 1 from lead l where ${listWhere(shape)} ${countCapLimit(shape.bigCap)}) capped)`;

const SHAPES: (LeadListShape & PageShape)[] = everyShape({
  group: [false, true],
  kind: ['lead', 'client', null] as LeadListShape['kind'][],
  search: [false, true],
  employee: [false, true],
  labels: [false, true],
}).flatMap((filter) => PAGE_SHAPES.map((page) => ({ ...filter, ...page })));

/**
 * A page of leads, newest first, as one row (`pageOfItems`): the stored list items (`lead.list_item`, JSON
 * text, with the lead's `label_ids` added last) joined; with `counted`, the capped count as `total`; and the caller's principal text read along
 * (`principal`, for user `userId`: see `PendingPrincipal`). Placeholders: the filter's, `offset`, `cap`, `userId`.
 */
export const LEAD_LIST = shapedStatement('crm_leads_list', {
  shapes: SHAPES.flatMap((shape) => [true, false].map((counted) => ({ ...shape, counted }))),
  build: (s) =>
    pageOfItems(
      sql`select left(l.list_item, -1) || ',"label_ids":' || ${recordLabelIdsJson('lead', sql`l.id`)} || '}' as item from lead l where ${listWhere(s)} order by l.created_at desc, l.id desc ${pageWindow(s.limit, s.offset)}`,
      s.counted ? countedLeads(s) : undefined,
      principalAlong(sql.placeholder('userId'), sql.placeholder('entityId')),
    ),
});

/** The capped count alone. */
export const LEAD_COUNT = shapedStatement('crm_leads_count', {
  shapes: SHAPES,
  build: (s) => sql`select ${countedLeads(s)} as n`,
});
