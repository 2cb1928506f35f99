/**
 * Reconciles a user's CRM memberships from the ERP at login (docs/decisions.md "Membership
 * reconciliation"). Best effort and conservative, so nobody is locked out by an ERP outage or by an
 * ERP that does not know them:
 * - only CRM entities whose ERP id appears in the ERP's answer are touched;
 * - `active: true` creates the employee row (no role: permissions stay a CRM decision) or reactivates
 *   it, and records the ERP employee id;
 * - `active: false` deactivates the employee row (an explicit ERP answer);
 * - entities the ERP does not list, and every failure, change nothing.
 */
import type { Db } from '../../db/client.js';
import type { ErpMembership } from '../../integrations/erp/index.js';
import { entitiesByErpIds, findEmployeeOfUser, insertEmployee, updateEmployeeMembership } from './membership.repository.js';

export interface MembershipChanges {
  created: number[];
  activated: number[];
  deactivated: number[];
}

/** Applies the ERP's memberships of `user` to the employee table; returns the CRM entity ids changed. */
export async function applyErpMemberships(db: Db, user: { id: number; name: string }, memberships: ErpMembership[]): Promise<MembershipChanges> {
  const changes: MembershipChanges = { created: [], activated: [], deactivated: [] };
  const entities = await entitiesByErpIds(db, [...new Set(memberships.map((m) => m.entity_id))]);
  for (const crm of entities) {
    const m = memberships.find((x) => x.entity_id === Number(crm.erpId));
    if (!m) continue;
    const current = await findEmployeeOfUser(db, crm.id, user.id);
    if (m.active) {
      if (!current) {
        await insertEmployee(db, crm.id, { userId: user.id, name: user.name, erpEmployeeId: m.employee_id });
        changes.created.push(crm.id);
      } else if (!current.isActive || (m.employee_id !== null && current.erpEmployeeId !== m.employee_id)) {
        await updateEmployeeMembership(db, crm.id, current.id, { isActive: true, ...(m.employee_id !== null ? { erpEmployeeId: m.employee_id } : {}) });
        if (!current.isActive) changes.activated.push(crm.id);
      }
    } else if (current?.isActive) {
      await updateEmployeeMembership(db, crm.id, current.id, { isActive: false });
      changes.deactivated.push(crm.id);
    }
  }
  return changes;
}
