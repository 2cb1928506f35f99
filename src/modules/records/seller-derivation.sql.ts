/**
 * SQL fragments of the seller derivation (SPEC "Cartera": seller is derived by merging direct lead
 * assignments with those inherited from the lead's group). A lead's effective sellers are its direct
 * assignments when it has any, otherwise its group's assignments: a direct assignment wins. Shared by the
 * leads list and the cartera read model so both filter identically, in SQL.
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * True for leads whose effective seller set contains `employeeId`. `leadId` and `groupId` are the
 * outer query's columns (e.g. `sql\`l.id\``).
 */
export function hasEffectiveSeller(leadId: SQL, groupId: SQL, employeeId: number): SQL {
  return sql`(exists (select 1 from lead_assignment la_f where la_f.lead_id = ${leadId} and la_f.employee_id = ${employeeId})
    or (not exists (select 1 from lead_assignment la_n where la_n.lead_id = ${leadId})
        and exists (select 1 from group_assignment ga_f where ga_f.group_id = ${groupId} and ga_f.employee_id = ${employeeId})))`;
}

/** True for leads with no effective seller (neither direct nor through the group). */
export function hasNoSeller(leadId: SQL, groupId: SQL): SQL {
  return sql`(not exists (select 1 from lead_assignment la_u where la_u.lead_id = ${leadId})
    and not exists (select 1 from group_assignment ga_u where ga_u.group_id = ${groupId}))`;
}
