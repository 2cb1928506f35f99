/**
 * Turns a bearer token into a `Principal`: verifies the JWT, then re-reads membership and permissions
 * from the database (one round trip while the grants are unchanged), so a revoked membership or a
 * permission change applies to the very next request. Shared by the HTTP guard and the realtime gateway. The lookup itself belongs to the identity
 * module, which owns users, memberships and subscriptions; it is passed in as `loadPrincipal`.
 */
import { LRUCache } from 'lru-cache';
import { unauthorized } from '../errors.js';
import { resolvePermissions, type Resolution, type SubscriptionGrant } from '../permissions/resolve.js';
import type { CrmTokenClaims, TokenService } from './jwt.js';

/** What the identity module reads for a user in an entity: who they are, their membership, their subscriptions. */
export interface PrincipalRecord {
  userId: number;
  email: string;
  erpUserId: number | null;
  /** Null when the user has no active employee record in the entity (no membership). */
  employeeId: number | null;
  erpEmployeeId: number | null;
  /**
   * Equal for equal subscriptions (the database's own rendering of them): the key of the resolution cache, so
   * a known set is neither parsed nor resolved again.
   */
  subscriptionsKey: string;
  /** The subscriptions reaching the membership (none without one); called only when the key is new. */
  subscriptions(): SubscriptionGrant[];
}

/**
 * Reads the principal record of `userId` in `entityId` as the database holds it now (one round trip, a second
 * when the grants changed); undefined when the user does not exist.
 */
export type PrincipalLoader = (userId: number, entityId: number) => Promise<PrincipalRecord | undefined>;

export interface Principal {
  userId: number;
  email: string;
  entityId: number;
  employeeId: number;
  erpUserId: number | null;
  erpEmployeeId: number | null;
  clientKind: string;
  claims: CrmTokenClaims;
  /** Token expiry, epoch seconds. */
  expiresAt: number;
  resolution: Resolution;
  permissions: ReadonlySet<string>;
}

export interface Authenticator {
  /** Throws 401 `invalid_token`, `token_expired` or `membership_revoked`. */
  authenticate(token: string): Promise<Principal>;
  /** Resolves a principal for a user and entity without a token (login, change-entity). */
  principalFor(userId: number, entityId: number, clientKind: string): Promise<Omit<Principal, 'claims' | 'expiresAt'> | undefined>;
}

export function createAuthenticator(deps: { loadPrincipal: PrincipalLoader; tokens: TokenService }): Authenticator {
  // The record is read on every request (SPEC: permissions are re-resolved each time), but the same
  // subscriptions always resolve to the same codes: each distinct set is resolved once per process and
  // shared (a Resolution is never mutated). Keyed by the record's own text of them, so a changed role or
  // override is a new key, and a known set is not even parsed.
  const resolved = new LRUCache<string, Resolution>({ max: 1000 });
  function resolutionOf(record: PrincipalRecord): Resolution {
    let resolution = resolved.get(record.subscriptionsKey);
    if (resolution === undefined) resolved.set(record.subscriptionsKey, (resolution = resolvePermissions(record.subscriptions())));
    return resolution;
  }
  async function principalFor(userId: number, entityId: number, clientKind: string) {
    const record = await deps.loadPrincipal(userId, entityId);
    if (!record || record.employeeId === null) return undefined;
    const resolution = resolutionOf(record);
    return {
      userId: record.userId,
      email: record.email,
      entityId,
      employeeId: record.employeeId,
      erpUserId: record.erpUserId,
      erpEmployeeId: record.erpEmployeeId,
      clientKind,
      resolution,
      permissions: resolution.codes,
    };
  }
  return {
    principalFor,
    async authenticate(token) {
      const claims = await deps.tokens.verify(token);
      const principal = await principalFor(claims.id, claims.entity_id, claims.client_kind);
      if (!principal) throw unauthorized('membership_revoked', 'The user is no longer a member of this entity');
      const exp = (claims as unknown as { exp: number }).exp;
      return { ...principal, claims, expiresAt: exp };
    },
  };
}
