/**
 * The stored seller derivation (`lead_seller`, see assignment.table.ts; SPEC "Cartera"): each lead's
 * direct sellers and the sellers inherited from its group, with the effective ones marked (direct wins).
 * It is rewritten from `lead_assignment`, `group_assignment` and `lead.group_id` by `refreshLeadSellers`
 * inside the transaction of every change to them, so the lists read it instead of deriving it per row.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { leadSeller } from './assignment.table.js';
import { runShapedIn, runStatementIn } from '../../db/statement.js';
import { COUNT_LEAD_SELLERS, DELETE_LEAD_SELLERS, INSERT_LEAD_SELLERS, LOCK_LEAD_SELLERS, type LeadSellerScopeShape } from './lead-seller.sql.js';
import { savepoint } from '../../platform/transactions/transaction.js';

/**
 * First key of the transaction-level advisory lock `(LEAD_SELLER_LOCK, entity id)` that serializes the
 * refreshes of one entity (two-key locks do not share a space with the one-key migration lock).
 */
const LEAD_SELLER_LOCK = 0x4c53;

/** The leads whose stored sellers a change affects: some leads, every lead of some groups, or a whole entity. */
export type LeadSellerScope = { leadIds: number[] } | { groupIds: number[] } | { allLeads: true };

function statementScope(entityId: number, scope: LeadSellerScope): { shape: LeadSellerScopeShape; values: { entityId: number; ids: number[] | undefined } } {
  if ('leadIds' in scope) return { shape: 'leads', values: { entityId, ids: scope.leadIds } };
  if ('groupIds' in scope) return { shape: 'groups', values: { entityId, ids: scope.groupIds } };
  return { shape: 'entity', values: { entityId, ids: undefined } };
}

/**
 * Takes the entity's seller-refresh lock, held until the transaction ends. `refreshLeadSellers` takes it
 * itself; a transaction that writes rows the cartera read model derives from (the lead, its contacts)
 * before refreshing takes it first, so it never holds a `cartera_item` row while waiting for a
 * refresh that needs that row (a deadlock).
 */
export async function lockLeadSellers(tx: Db, entityId: number): Promise<void> {
  await runStatementIn(tx, LOCK_LEAD_SELLERS, [LEAD_SELLER_LOCK, entityId]);
}

/**
 * Recomputes the stored sellers of the leads in `scope` from the assignments as `tx` sees them. Run it
 * inside the transaction of the change, after the change. It first takes the entity's advisory lock,
 * held until commit, so a concurrent change in the same entity refreshes only after this one commits,
 * with a fresh snapshot that sees it: the last refresh of a lead always sees every committed change.
 */
export async function refreshLeadSellers(tx: Db, entityId: number, scope: LeadSellerScope): Promise<void> {
  if (('leadIds' in scope && scope.leadIds.length === 0) || ('groupIds' in scope && scope.groupIds.length === 0)) return;
  const { shape, values } = statementScope(entityId, scope);
  await lockLeadSellers(tx, entityId);
  await runShapedIn(tx, DELETE_LEAD_SELLERS, shape, values);
  await runShapedIn(tx, INSERT_LEAD_SELLERS, shape, values);
}

/**
 * Rebuilds the stored sellers of every lead of the entity in one transaction, for rows written around
 * the records repository (bulk loads with SQL, repairs; `npm run cli -- lead-sellers:rebuild`). Returns
 * the number of stored rows.
 */
export async function rebuildLeadSellers(db: Db, entityId: number): Promise<number> {
  return savepoint(db, async (tx) => {
    await refreshLeadSellers(tx, entityId, { allLeads: true });
    const [row] = await runStatementIn<{ n: number }>(tx, COUNT_LEAD_SELLERS, [entityId]);
    return row?.n ?? 0;
  });
}

/**
 * The leads each of `employeeIds` is an effective seller of in the entity (direct or through the group),
 * keyed by employee id: what a seller's realtime audience listens to (interactions' conversation visibility).
 */
export async function effectiveLeadsOf(db: Db, entityId: number, employeeIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(employeeIds.map((id) => [id, []]));
  if (employeeIds.length === 0) return out;
  const rows = await db
    .select({ employeeId: leadSeller.employeeId, leadId: leadSeller.leadId })
    .from(leadSeller)
    .where(and(eq(leadSeller.entityId, entityId), inArray(leadSeller.employeeId, [...employeeIds]), eq(leadSeller.effective, true)));
  for (const r of rows) out.get(r.employeeId)?.push(r.leadId);
  return out;
}
