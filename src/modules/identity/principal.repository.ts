/**
 * Loads, in one round trip, what the guard needs on every request: the user, their active membership of
 * the entity, and the subscriptions reaching it with their roles' base codes and overrides.
 */
import type { Database } from '../../db/client.js';
import { runStatement } from '../../db/statement.js';
import { LOAD_PRINCIPAL } from './principal.sql.js';
import type { PrincipalRecord } from '../../platform/auth/authenticator.js';

interface Row {
  user_id: number;
  email: string;
  erp_user_id: number | null;
  employee_id: number | null;
  erp_employee_id: number | null;
  /** JSON text of `SubscriptionGrant[]`, `[]` without a membership. */
  subscriptions: string;
}

/** Returns the principal of `userId` in `entityId`, or `undefined` when the user does not exist. */
export async function loadPrincipal(database: Database, userId: number, entityId: number): Promise<PrincipalRecord | undefined> {
  const [row] = await runStatement<Row>(database, LOAD_PRINCIPAL, [userId, entityId]);
  if (!row) return undefined;
  return {
    userId: row.user_id,
    email: row.email,
    erpUserId: row.erp_user_id,
    employeeId: row.employee_id,
    erpEmployeeId: row.erp_employee_id,
    subscriptionsJson: row.subscriptions,
  };
}
