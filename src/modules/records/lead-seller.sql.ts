/**
 * Statements of the stored seller derivation (`lead_seller`), run by lead-seller.repository.ts: its lock,
 * the rewrite of the sellers of some leads, and the count after a rebuild.
 */
import { sql, type SQL } from 'drizzle-orm';
import { shapedStatement, statement } from '../../db/statement.js';

/** The transaction-level advisory lock `($1, $2)`: the refresh lock's first key and the entity id. */
export const LOCK_LEAD_SELLERS = statement('records_lock_lead_sellers', 'select pg_advisory_xact_lock($1, $2)');

/** Which leads a refresh rewrites: some leads (`ids`), every lead of some groups (`ids`), or the whole entity. */
export type LeadSellerScopeShape = 'leads' | 'groups' | 'entity';

const SCOPE_SHAPES: readonly LeadSellerScopeShape[] = ['leads', 'groups', 'entity'];

function leadsOf(scope: LeadSellerScopeShape): SQL {
  const entity = sql`l.entity_id = ${sql.placeholder('entityId')}`;
  if (scope === 'leads') return sql`${entity} and l.id = any(${sql.placeholder('ids')}::int[])`;
  if (scope === 'groups') return sql`${entity} and l.group_id = any(${sql.placeholder('ids')}::int[])`;
  return entity;
}

/** Deletes the stored sellers of the scope's leads (placeholders `entityId`, `ids`). */
export const DELETE_LEAD_SELLERS = shapedStatement('records_delete_lead_sellers', {
  shapes: SCOPE_SHAPES,
  build: (scope) => sql`delete from lead_seller s using lead l where s.lead_id = l.id and ${leadsOf(scope)}`,
});

/** Writes the scope's sellers again: direct ones effective, inherited ones effective when the lead has no direct one. */
export const INSERT_LEAD_SELLERS = shapedStatement('records_insert_lead_sellers', {
  shapes: SCOPE_SHAPES,
  build: (scope) => sql`insert into lead_seller (entity_id, lead_id, employee_id, via, assignment_id, effective)
    select l.entity_id, l.id, la.employee_id, 'lead'::lead_seller_via, la.id, true
      from lead l join lead_assignment la on la.lead_id = l.id where ${leadsOf(scope)}
    union all
    select l.entity_id, l.id, ga.employee_id, 'group'::lead_seller_via, ga.id, not exists (select 1 from lead_assignment d where d.lead_id = l.id)
      from lead l join group_assignment ga on ga.group_id = l.group_id where ${leadsOf(scope)}`,
});

/** The number of stored seller rows of entity `$1`. */
export const COUNT_LEAD_SELLERS = statement('records_count_lead_sellers', 'select count(*)::int as n from lead_seller where entity_id = $1');
