/**
 * SQL fragments of the seller filters (SPEC "Cartera": the seller is derived by merging direct lead
 * assignments with those inherited from the lead's group; a direct assignment wins). They read the
 * stored derivation (`lead_seller`, kept by lead-seller.repository.ts), so a filter is an index lookup.
 * Shared by the leads list and the cartera read model so both filter identically, in SQL.
 */
import { sql, type SQL } from 'drizzle-orm';

/** True for leads whose effective sellers include `employeeId`. `leadId` is the outer query's column (e.g. `sql\`l.id\``). */
export function hasEffectiveSeller(leadId: SQL, employeeId: number): SQL {
  return sql`exists (select 1 from lead_seller ls_f where ls_f.lead_id = ${leadId} and ls_f.employee_id = ${employeeId} and ls_f.effective)`;
}

/** True for leads with no seller at all (neither direct nor through the group). */
export function hasNoSeller(leadId: SQL): SQL {
  return sql`not exists (select 1 from lead_seller ls_u where ls_u.lead_id = ${leadId})`;
}
