/**
 * The ERP session state machine (SPEC "ERP session status", docs/api/erp-session.md "State machine") as pure
 * functions over the decrypted record: status at an instant, refresh timing and the public snapshot.
 */
import type { ErpSessionSnapshot } from './erp-session.schemas.js';
import { missingErpSession } from './erp-session.schemas.js';
import type { ErpSessionScope } from './erp-session.repository.js';

/** What the sealed record holds (never leaves the server). */
export interface ErpSessionSecret {
  email: string;
  apiKey: string;
  graphqlJwt: string;
  /** ISO 8601. */
  graphqlJwtExpiresAt: string;
  /** ISO 8601: from here on a refresh of the GraphQL JWT is due (`expiring_soon`). */
  refreshAfter: string;
  profile: { userId: number; employeeId: number | null; name: string; email: string };
  selectedEntity: { id: number; name: string; logo: string | null };
  checkedAt: string;
  syncedAt: string;
}

/** Share of the JWT lifetime, at its end, during which the session is `expiring_soon`. */
const REFRESH_WINDOW_SHARE = 0.2;

/** `refresh_after` for a JWT valid from `issuedAt` to `expiresAt`: the last 20% of its lifetime. */
export function refreshAfterFor(issuedAt: Date, expiresAt: Date): Date {
  const lifetime = Math.max(0, expiresAt.getTime() - issuedAt.getTime());
  return new Date(expiresAt.getTime() - lifetime * REFRESH_WINDOW_SHARE);
}

export type ErpSessionStatus = ErpSessionSnapshot['status'];

/**
 * Status of a stored session at `now` for a CRM entity whose ERP id is `crmErpEntityId`. Precedence:
 * expired > entity_mismatch > expiring_soon > ready (an expired JWT needs a sync whatever else holds).
 */
export function statusOf(secret: ErpSessionSecret, crmErpEntityId: number | undefined, now: Date): ErpSessionStatus {
  if (now.getTime() >= Date.parse(secret.graphqlJwtExpiresAt)) return 'expired';
  if (crmErpEntityId !== undefined && secret.selectedEntity.id !== crmErpEntityId) return 'entity_mismatch';
  if (now.getTime() >= Date.parse(secret.refreshAfter)) return 'expiring_soon';
  return 'ready';
}

/** The public snapshot: normalized metadata only, never the JWT or the API key. */
export function toSnapshot(scope: ErpSessionScope, secret: ErpSessionSecret | undefined, crmErpEntityId: number | undefined, now: Date): ErpSessionSnapshot {
  if (!secret) return missingErpSession(scope.entityId, scope.clientKind);
  return {
    status: statusOf(secret, crmErpEntityId, now),
    entity_id: scope.entityId,
    client_kind: scope.clientKind,
    selected_entity_id: secret.selectedEntity.id,
    selected_entity_name: secret.selectedEntity.name,
    selected_entity_logo: secret.selectedEntity.logo,
    erp_user_id: secret.profile.userId,
    erp_employee_id: secret.profile.employeeId,
    graphql_jwt_expires_at: secret.graphqlJwtExpiresAt,
    refresh_after: secret.refreshAfter,
    checked_at: secret.checkedAt,
    synced_at: secret.syncedAt,
  };
}

/** The sealed-box scope string: the record is bound to exactly this (user, entity, client kind). */
export function scopeKey(scope: ErpSessionScope): string {
  return `erp_session|${scope.userId}|${scope.entityId}|${scope.clientKind}`;
}
