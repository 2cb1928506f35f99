/**
 * SQL fragments of the seller filters (SPEC "Cartera": the seller is derived by merging direct lead
 * assignments with those inherited from the lead's group; a direct assignment wins). They read the
 * stored derivation (`lead_seller`, kept by lead-seller.repository.ts), so a filter is an index lookup.
 * Shared by the leads list and the cartera lists so both filter identically, in SQL.
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * True for leads whose effective sellers include `employeeId` (a value or a placeholder). `leadId` and
 * `entityId` are the outer query's lead id and entity columns (e.g. `sql\`l.id\``, `sql\`l.entity_id\``);
 * correlating the entity lets PostgreSQL start from the seller's rows
 * (`lead_seller_entity_id_employee_id_idx`) when the seller holds few leads.
 */
export function hasEffectiveSeller(leadId: SQL, entityId: SQL, employeeId: unknown): SQL {
  return sql`exists (select 1 from lead_seller ls_f where ls_f.lead_id = ${leadId} and ls_f.entity_id = ${entityId} and ls_f.employee_id = ${employeeId} and ls_f.effective)`;
}

/**
 * The ids of the leads whose effective sellers include `employeeId`, as an array computed once per
 * statement (`lead_id = any(...)` then reads an index on the lead for each of the seller's few leads,
 * where an `exists` per row may be planned as a scan of every row of the entity).
 */
export function effectiveSellerLeadIds(entityId: unknown, employeeId: unknown): SQL {
  return sql`array(select ls_f.lead_id from lead_seller ls_f where ls_f.entity_id = ${entityId} and ls_f.employee_id = ${employeeId} and ls_f.effective)`;
}
