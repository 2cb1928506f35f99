/**
 * Loads, in one round trip, what the guard needs on every request: the user, their active membership of
 * the entity, and the subscriptions reaching it with their roles' base codes and overrides.
 */
import type { Database } from '../../db/client.js';
import { runStatement } from '../../db/statement.js';
import { LOAD_PRINCIPAL } from './principal.sql.js';
import type { PrincipalRecord } from '../../platform/auth/authenticator.js';
import type { SubscriptionGrant, SubscriptionLevel } from '../../platform/permissions/resolve.js';

interface Row {
  user_id: number;
  email: string;
  erp_user_id: number | null;
  employee_id: number | null;
  erp_employee_id: number | null;
  /** JSON text of `GrantTuple[]` (principal.sql.ts), null without a membership or subscription. */
  subscriptions: string | null;
}

/** One subscription as the statement writes it. */
type GrantTuple = [number, SubscriptionLevel, number, string, string[] | null, [string, 'ALLOW' | 'DENY'][] | null];

function grantsOf(text: string): SubscriptionGrant[] {
  return (JSON.parse(text) as GrantTuple[]).map(([subscriptionId, level, roleId, roleName, baseCodes, overrides]) => ({
    subscriptionId,
    level,
    roleId,
    roleName,
    baseCodes: baseCodes ?? [],
    overrides: (overrides ?? []).map(([code, effect]) => ({ code, effect })),
  }));
}

/** Returns the principal of `userId` in `entityId`, or `undefined` when the user does not exist. */
export async function loadPrincipal(database: Database, userId: number, entityId: number): Promise<PrincipalRecord | undefined> {
  const [row] = await runStatement<Row>(database, LOAD_PRINCIPAL, [userId, entityId]);
  if (!row) return undefined;
  const text = row.subscriptions ?? '[]';
  return {
    userId: row.user_id,
    email: row.email,
    erpUserId: row.erp_user_id,
    employeeId: row.employee_id,
    erpEmployeeId: row.erp_employee_id,
    subscriptionsKey: text,
    subscriptions: () => grantsOf(text),
  };
}
