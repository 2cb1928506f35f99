/**
 * Reads what the guard needs on every request: the user, their active membership of the entity and the
 * grants version (one round trip); and, when the version is one the process has not seen, the
 * subscriptions reaching the membership with their roles' base codes and overrides.
 */
import type { Database } from '../../db/client.js';
import { runStatement } from '../../db/statement.js';
import { LOAD_PRINCIPAL, LOAD_SUBSCRIPTIONS } from './principal.sql.js';
import type { SubscriptionGrant, SubscriptionLevel } from '../../platform/permissions/resolve.js';

export interface PrincipalRow {
  user_id: number;
  email: string;
  erp_user_id: number | null;
  employee_id: number | null;
  erp_employee_id: number | null;
  /** The grants version (a uuid's text); null only if its row is missing. */
  grants_version: string | null;
}

/** One subscription as `LOAD_SUBSCRIPTIONS` writes it. */
type GrantTuple = [number, SubscriptionLevel, number, string, string[] | null, [string, 'ALLOW' | 'DENY'][] | null];

/** Parses the subscriptions' text of `loadSubscriptions` into grants. */
export function grantsOf(text: string): SubscriptionGrant[] {
  return (JSON.parse(text) as GrantTuple[]).map(([subscriptionId, level, roleId, roleName, baseCodes, overrides]) => ({
    subscriptionId,
    level,
    roleId,
    roleName,
    baseCodes: baseCodes ?? [],
    overrides: (overrides ?? []).map(([code, effect]) => ({ code, effect })),
  }));
}

/** The user `userId` with their active employee row in `entityId` and the grants version; undefined when the user does not exist. */
export async function loadPrincipal(database: Database, userId: number, entityId: number): Promise<PrincipalRow | undefined> {
  const [row] = await runStatement<PrincipalRow>(database, LOAD_PRINCIPAL, [userId, entityId]);
  return row;
}

/**
 * The subscriptions reaching employee `employeeId` (user `userId` in `entityId`) as JSON text (`[]` without
 * any), with the grants version read in the same snapshot.
 */
export async function loadSubscriptions(
  database: Database,
  employeeId: number,
  userId: number,
  entityId: number,
): Promise<{ grantsVersion: string | null; text: string }> {
  const [row] = await runStatement<{ grants_version: string | null; subscriptions: string | null }>(database, LOAD_SUBSCRIPTIONS, [
    employeeId,
    userId,
    entityId,
  ]);
  return { grantsVersion: row?.grants_version ?? null, text: row?.subscriptions ?? '[]' };
}
