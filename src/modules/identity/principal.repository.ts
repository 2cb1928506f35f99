/**
 * Reads what the guard needs on every request: the user, their active membership of the entity and the
 * grants version (one round trip); and, when the version is one the process has not seen, the
 * subscriptions reaching the membership with their roles' base codes and overrides.
 */
import type { Database } from '../../db/client.js';
import { runShaped } from '../../db/prepared-sql.js';
import { runStatement } from '../../db/statement.js';
import { LOAD_PRINCIPAL, LOAD_SUBSCRIPTIONS } from './principal.sql.js';
import type { SubscriptionGrant, SubscriptionLevel } from '../../platform/permissions/resolve.js';

/** What `LOAD_PRINCIPAL` reads, parsed from its text (`principalRowOf`). */
export interface PrincipalRow {
  userId: number;
  /** Null without an active membership. */
  entityId: number | null;
  email: string;
  erpUserId: number | null;
  /** Null without an active membership. */
  employeeId: number | null;
  erpEmployeeId: number | null;
  /** The grants version (a uuid's text); null only if its row is missing. */
  grantsVersion: string | null;
}

type PrincipalTuple = [number, number | null, string, number | null, number | null, number | null, string | null];

/** Parses the text of `loadPrincipalText`. */
export function principalRowOf(text: string): PrincipalRow {
  const [userId, entityId, email, erpUserId, employeeId, erpEmployeeId, grantsVersion] = JSON.parse(text) as PrincipalTuple;
  return { userId, entityId, email, erpUserId, employeeId, erpEmployeeId, grantsVersion };
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

/**
 * The user `userId` with their active employee row in `entityId` and the grants version, as the statement's
 * JSON text (equal texts for equal reads: `principalRowOf` parses it); undefined when the user does not exist.
 */
export async function loadPrincipalText(database: Database, userId: number, entityId: number): Promise<string | undefined> {
  const [row] = await runShaped<{ principal: string }, undefined>(database, LOAD_PRINCIPAL, undefined, { userId, entityId });
  return row?.principal;
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
