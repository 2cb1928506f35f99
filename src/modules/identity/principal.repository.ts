/**
 * Loads, in one round trip, what the guard needs on every request: the user, their active membership of
 * the entity, and the subscriptions reaching it with their roles' base codes and overrides.
 */
import type { Database } from '../../db/client.js';
import { runStatement } from '../../db/statement.js';
import { LOAD_PRINCIPAL } from './principal.sql.js';
import type { PrincipalRecord } from '../../platform/auth/authenticator.js';
import type { SubscriptionLevel } from '../../platform/permissions/resolve.js';

interface Row {
  user_id: number;
  email: string;
  erp_user_id: number | null;
  employee_id: number | null;
  erp_employee_id: number | null;
  subscription_id: number | null;
  level: number | null;
  role_id: number | null;
  role_name: string | null;
  base_codes: string[] | null;
  overrides: { code: string; effect: 'ALLOW' | 'DENY' }[] | null;
}

/** Returns the principal of `userId` in `entityId`, or `undefined` when the user does not exist. */
export async function loadPrincipal(database: Database, userId: number, entityId: number): Promise<PrincipalRecord | undefined> {
  const rows = await runStatement<Row>(database, LOAD_PRINCIPAL, [userId, entityId]);
  const first = rows[0];
  if (!first) return undefined;
  return {
    userId: first.user_id,
    email: first.email,
    erpUserId: first.erp_user_id,
    employeeId: first.employee_id,
    erpEmployeeId: first.erp_employee_id,
    subscriptions: rows
      .filter((r) => r.subscription_id !== null)
      .map((r) => ({
        subscriptionId: r.subscription_id!,
        level: Number(r.level) as SubscriptionLevel,
        roleId: r.role_id!,
        roleName: r.role_name!,
        baseCodes: r.base_codes ?? [],
        overrides: r.overrides ?? [],
      })),
  };
}
