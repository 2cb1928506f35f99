/**
 * The stored seller derivation (`lead_seller`, see assignment.table.ts; SPEC "Cartera"): each lead's
 * direct sellers and the sellers inherited from its group, with the effective ones marked (direct wins).
 * It is rewritten from `lead_assignment`, `group_assignment` and `lead.group_id` by `refreshLeadSellers`
 * inside the transaction of every change to them, so the lists read it instead of deriving it per row.
 */
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

/**
 * First key of the transaction-level advisory lock `(LEAD_SELLER_LOCK, entity id)` that serializes the
 * refreshes of one entity (two-key locks do not share a space with the one-key migration lock).
 */
const LEAD_SELLER_LOCK = 0x4c53;

/** The leads whose stored sellers a change affects: some leads, every lead of some groups, or a whole entity. */
export type LeadSellerScope = { leadIds: number[] } | { groupIds: number[] } | { allLeads: true };

function leadsOf(entityId: number, scope: LeadSellerScope): SQL {
  if ('leadIds' in scope) return sql`l.entity_id = ${entityId} and l.id = any(${sql.param(scope.leadIds)}::int[])`;
  if ('groupIds' in scope) return sql`l.entity_id = ${entityId} and l.group_id = any(${sql.param(scope.groupIds)}::int[])`;
  return sql`l.entity_id = ${entityId}`;
}

/**
 * Takes the entity's seller-refresh lock, held until the transaction ends. `refreshLeadSellers` takes it
 * itself; a transaction that writes rows the cartera read model derives from (the lead, its contacts)
 * before refreshing takes it first, so it never holds a `cartera_item` row while waiting for a
 * refresh that needs that row (a deadlock).
 */
export async function lockLeadSellers(tx: Db, entityId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${LEAD_SELLER_LOCK}, ${entityId})`);
}

/**
 * Recomputes the stored sellers of the leads in `scope` from the assignments as `tx` sees them. Run it
 * inside the transaction of the change, after the change. It first takes the entity's advisory lock,
 * held until commit, so a concurrent change in the same entity refreshes only after this one commits,
 * with a fresh snapshot that sees it: the last refresh of a lead always sees every committed change.
 */
export async function refreshLeadSellers(tx: Db, entityId: number, scope: LeadSellerScope): Promise<void> {
  if (('leadIds' in scope && scope.leadIds.length === 0) || ('groupIds' in scope && scope.groupIds.length === 0)) return;
  const leads = leadsOf(entityId, scope);
  await lockLeadSellers(tx, entityId);
  await tx.execute(sql`delete from lead_seller s using lead l where s.lead_id = l.id and ${leads}`);
  await tx.execute(sql`insert into lead_seller (entity_id, lead_id, employee_id, via, assignment_id, effective)
    select l.entity_id, l.id, la.employee_id, 'lead'::lead_seller_via, la.id, true
      from lead l join lead_assignment la on la.lead_id = l.id where ${leads}
    union all
    select l.entity_id, l.id, ga.employee_id, 'group'::lead_seller_via, ga.id, not exists (select 1 from lead_assignment d where d.lead_id = l.id)
      from lead l join group_assignment ga on ga.group_id = l.group_id where ${leads}`);
}

/**
 * Rebuilds the stored sellers of every lead of the entity in one transaction, for rows written around
 * the records repository (bulk loads with SQL, repairs; `npm run cli -- lead-sellers:rebuild`). Returns
 * the number of stored rows.
 */
export async function rebuildLeadSellers(db: Db, entityId: number): Promise<number> {
  return db.transaction(async (tx) => {
    await refreshLeadSellers(tx, entityId, { allLeads: true });
    const [row] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from lead_seller where entity_id = ${entityId}`);
    return row?.n ?? 0;
  });
}
