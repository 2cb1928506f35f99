/**
 * SQL fragments of the seller filters (SPEC "Cartera": the seller is derived by merging direct lead
 * assignments with those inherited from the lead's group; a direct assignment wins). They read the
 * stored derivation (`lead_seller`, kept by lead-seller.repository.ts), so a filter is an index lookup.
 * Shared by the leads list and the cartera read model so both filter identically, in SQL.
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * True for leads whose effective sellers include `employeeId` (a value or a placeholder). `lead` is the
 * outer query's lead alias (e.g. `sql\`l\``); correlating the entity lets PostgreSQL start from the
 * seller's rows (`lead_seller_entity_id_employee_id_idx`) when the seller holds few leads.
 */
export function hasEffectiveSeller(lead: SQL, employeeId: unknown): SQL {
  return sql`exists (select 1 from lead_seller ls_f where ls_f.lead_id = ${lead}.id and ls_f.entity_id = ${lead}.entity_id and ls_f.employee_id = ${employeeId} and ls_f.effective)`;
}

/** True for leads with no seller at all (neither direct nor through the group). `lead` as in `hasEffectiveSeller`. */
export function hasNoSeller(lead: SQL): SQL {
  return sql`not exists (select 1 from lead_seller ls_u where ls_u.lead_id = ${lead}.id)`;
}
