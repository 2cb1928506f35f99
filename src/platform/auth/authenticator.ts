/**
 * Turns a bearer token into a `Principal`: verifies the JWT, then re-reads membership and permissions
 * from the database (one round trip while the grants are unchanged), so a revoked membership or a
 * permission change applies to the very next request. Shared by the HTTP guard and the realtime gateway. The lookup itself belongs to the identity
 * module, which owns users, memberships and subscriptions; it is passed in as `principals`. A route may read
 * the principal along with its own statement instead (`PendingPrincipal`): then the token is verified
 * first and the principal built from what that statement read.
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
 * Reads principal records of the identity module. Records are never mutated: a loader may answer reads that
 * came back alike with the same record, and the authenticator keeps what it builds from a record with it.
 */
export interface PrincipalLoader {
  /**
   * The record of `userId` in `entityId` as the database holds it now (one round trip, a second when the
   * grants changed); undefined when the user does not exist.
   */
  load(userId: number, entityId: number): Promise<PrincipalRecord | undefined>;
  /**
   * The record from the principal's text that a route's statement read along (the identity module's
   * `principalAlong`; null when the user does not exist): no round trip unless the grants changed.
   */
  fromText(text: string | null, userId: number, entityId: number): Promise<PrincipalRecord | undefined>;
}

/**
 * The authenticated caller of a request or socket. Read-only: requests with the same token, while the
 * database reads alike, share one principal.
 */
export interface Principal {
  readonly userId: number;
  readonly email: string;
  readonly entityId: number;
  readonly employeeId: number;
  readonly erpUserId: number | null;
  readonly erpEmployeeId: number | null;
  readonly clientKind: string;
  readonly claims: CrmTokenClaims;
  /** Token expiry, epoch seconds. */
  readonly expiresAt: number;
  readonly resolution: Resolution;
  readonly permissions: ReadonlySet<string>;
  /**
   * The API key acting (issue 53), null for a person. A key acts as its creator's employee, with the codes
   * it was given that its creator still holds; `actorOf` names it `api_key:<id>` in events and logs.
   */
  readonly apiKeyId: number | null;
}

/** Who acted, for logs and events: `api_key:<id>` for a key, `employee:<id>` for a person. */
export function actorOf(p: Pick<Principal, 'apiKeyId' | 'employeeId'>): string {
  return p.apiKeyId !== null ? `api_key:${p.apiKeyId}` : `employee:${p.employeeId}`;
}

/** What the api-keys module reads for a presented key secret (issue 53). */
interface ApiKeyRecord {
  id: number;
  entityId: number;
  createdByUserId: number;
  /** The codes the key was given, closed under implications. */
  codes: readonly string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** Reads API keys for the authenticator (answered by the api-keys module, which owns them). */
export interface ApiKeyLoader {
  /** The key whose secret is `secret` as the database holds it now (one indexed read); undefined when none. */
  load(secret: string): Promise<ApiKeyRecord | undefined>;
  /** The key authenticated a request: its `last_used_at` is written, at most once a minute (never awaited). */
  used(id: number): void;
}

/** Whether a bearer credential is an API key secret (`crm_` prefix) rather than a session token. */
export function isApiKeySecret(token: string): boolean {
  return token.startsWith('crm_');
}

/** What a principal takes from its record: all but the token's part. */
type Member = Omit<Principal, 'clientKind' | 'claims' | 'expiresAt'>;

/**
 * A caller whose token is verified and whose membership the route reads along with its own statement, so
 * that a request makes one round trip instead of two (issue 29). `userId` and `entityId` are the token's:
 * the statement is scoped by them, and reads the principal's text with `principalAlong(userId, entityId)`.
 * Nothing else it read may be used, or answered, before `confirm` has returned.
 */
export interface PendingPrincipal {
  readonly userId: number;
  readonly entityId: number;
  /**
   * The principal from the text read along, checked as the guard checks it (membership, the route's
   * permission, its `authorize` rule); throws 401 `membership_revoked` or 403 as the guard would.
   */
  confirm(principalText: string | null): Promise<Principal>;
}

export interface Authenticator {
  /** Throws 401 `invalid_token`, `token_expired` or `membership_revoked`. */
  authenticate(token: string): Promise<Principal>;
  /** Verifies `token` without reading the membership (401 `invalid_token`, `token_expired`). */
  verify(token: string): Promise<CrmTokenClaims>;
  /**
   * The principal of verified `claims` from the principal's text a route's statement read along (see
   * `PendingPrincipal`); throws 401 `membership_revoked`.
   */
  admit(claims: CrmTokenClaims, principalText: string | null): Promise<Principal>;
  /**
   * The principal of an API key secret (issue 53): its creator's membership with the key's codes that the
   * creator still holds. Throws 401 `invalid_api_key`, `api_key_revoked`, `api_key_expired`, or
   * `membership_revoked` when the creator is no longer a member. Nothing is cached: a revocation applies to
   * the next request on every instance.
   */
  authenticateApiKey(secret: string): Promise<Principal>;
  /** Resolves a principal for a user and entity without a token (login, change-entity). */
  principalFor(userId: number, entityId: number, clientKind: string): Promise<Omit<Principal, 'claims' | 'expiresAt'> | undefined>;
}

/** The client kind of a principal acting through an API key. */
const API_KEY_CLIENT_KIND = 'api_key';

export function createAuthenticator(deps: { principals: PrincipalLoader; tokens: TokenService; apiKeys?: ApiKeyLoader }): Authenticator {
  // The record is read on every request (SPEC: permissions are re-resolved each time), but the same
  // subscriptions always resolve to the same codes: each distinct set is resolved once per process and
  // shared (a Resolution is never mutated). Keyed by the record's own text of them, so a changed role or
  // override is a new key, and a known set is not even parsed.
  const resolved = new LRUCache<string, Resolution>({ max: 1000 });
  // A loader hands out the same record while the database reads alike: what is built from it is kept with
  // it, and so is the principal last built from that member with a token's claims (the token service
  // answers a known token with the same claims), so a request allocates no principal of its own.
  const members = new WeakMap<PrincipalRecord, Member>();
  const principals = new WeakMap<Member, Principal>();

  /** The principal's part that depends only on `record` in `entityId`; undefined without a membership. */
  function memberOf(record: PrincipalRecord | undefined, entityId: number): Member | undefined {
    if (!record || record.employeeId === null) return undefined;
    let member = members.get(record);
    if (member === undefined || member.entityId !== entityId) {
      let resolution = resolved.get(record.subscriptionsKey);
      if (resolution === undefined) resolved.set(record.subscriptionsKey, (resolution = resolvePermissions(record.subscriptions())));
      member = {
        userId: record.userId,
        email: record.email,
        entityId,
        employeeId: record.employeeId,
        erpUserId: record.erpUserId,
        erpEmployeeId: record.erpEmployeeId,
        resolution,
        permissions: resolution.codes,
        apiKeyId: null,
      };
      members.set(record, member);
    }
    return member;
  }

  /** The principal of `claims` from their user's record; 401 without a membership. */
  function principalOf(claims: CrmTokenClaims, record: PrincipalRecord | undefined): Principal {
    const member = memberOf(record, claims.entity_id);
    if (!member) throw unauthorized('membership_revoked', 'The user is no longer a member of this entity');
    let principal = principals.get(member);
    if (principal?.claims !== claims) {
      const exp = (claims as unknown as { exp: number }).exp;
      principal = { ...member, clientKind: claims.client_kind, claims, expiresAt: exp };
      principals.set(member, principal);
    }
    return principal;
  }

  async function authenticateApiKey(secret: string): Promise<Principal> {
    const key = deps.apiKeys ? await deps.apiKeys.load(secret) : undefined;
    if (!key) throw unauthorized('invalid_api_key', 'The API key is not valid');
    if (key.revokedAt !== null) throw unauthorized('api_key_revoked', 'The API key has been revoked');
    if (key.expiresAt !== null && key.expiresAt.getTime() <= Date.now()) throw unauthorized('api_key_expired', 'The API key has expired');
    const member = memberOf(await deps.principals.load(key.createdByUserId, key.entityId), key.entityId);
    if (!member) throw unauthorized('membership_revoked', "The API key's creator is no longer a member of this entity");
    // Never more than the creator holds now: a creator who loses a code takes it from their keys too.
    const permissions = new Set(key.codes.filter((c) => member.permissions.has(c)));
    // A key is never super_admin nor any subscription's holder: rules that look at the resolution see only its codes.
    const resolution: Resolution = {
      subscriptions: [],
      effective: null,
      roleSource: null,
      superAdmin: false,
      codes: permissions,
      reasons: new Map(),
      denied: new Map(),
    };
    deps.apiKeys!.used(key.id);
    const expiresAt = key.expiresAt === null ? Number.MAX_SAFE_INTEGER : Math.floor(key.expiresAt.getTime() / 1000);
    const claims: CrmTokenClaims = {
      id: member.userId,
      email: member.email,
      erp_user_id: member.erpUserId,
      role_id: null,
      role_name: null,
      entity_id: key.entityId,
      employee_role_id: null,
      user_role_id: null,
      role_source: null,
      employee_id: member.employeeId,
      erp_employee_id: member.erpEmployeeId,
      client_kind: API_KEY_CLIENT_KIND,
    };
    return { ...member, resolution, permissions, apiKeyId: key.id, clientKind: API_KEY_CLIENT_KIND, claims, expiresAt };
  }

  return {
    authenticateApiKey,
    async principalFor(userId, entityId, clientKind) {
      const member = memberOf(await deps.principals.load(userId, entityId), entityId);
      return member && { ...member, clientKind };
    },
    async authenticate(token) {
      const claims = await deps.tokens.verify(token);
      return principalOf(claims, await deps.principals.load(claims.id, claims.entity_id));
    },
    verify: (token) => deps.tokens.verify(token),
    async admit(claims, principalText) {
      return principalOf(claims, await deps.principals.fromText(principalText, claims.id, claims.entity_id));
    },
  };
}
