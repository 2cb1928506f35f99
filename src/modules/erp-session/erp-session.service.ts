/**
 * The ERP session (SPEC "ERP session snapshot", "ERP session security", docs/api/erp-session.md "State machine"):
 * obtaining ERP credentials at login, reconciling and storing the encrypted session per
 * (user, entity, client kind), the snapshot, refresh of a due GraphQL JWT (once, even under concurrent
 * requests), and the ERP-backed access check used by the module guard.
 */
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TSchema, Static } from 'typebox';
import type { Db } from '../../db/client.js';
import type { SealedBox } from '../../platform/crypto/sealed-box.js';
import { isErpError, type ErpClient, type ErpCredentials } from '../../integrations/erp/index.js';
import type { ErpSessionSnapshot } from './erp-session.schemas.js';
import { deleteSealed, findSealed, saveSealed, scopesOfEntity, type ErpSessionScope } from './erp-session.repository.js';
import { refreshAfterFor, scopeKey, statusOf, toSnapshot, type ErpSessionSecret } from './erp-session.state.js';
import { erpEntityMismatch, erpInvalidResponse, erpSessionInvalid, erpSessionRequired, erpUnavailable } from './erp-session.errors.js';
import type { IdentityService, MembershipChanges } from '../identity/index.js';

export interface ErpSessionServiceDeps {
  db: Db;
  /** Entities and memberships (the identity module). */
  identity: Pick<IdentityService, 'entity' | 'applyErpMemberships'>;
  erp: ErpClient;
  box: SealedBox;
  log: FastifyBaseLogger;
}

/** What an ERP-backed handler receives from the guard: the scope and a usable GraphQL JWT. */
export interface ErpAccess {
  scope: ErpSessionScope;
  graphqlJwt: string;
}

/** Outcome of asking the ERP who the user is at login. */
export interface LoginCredentials {
  /** Set when the ERP confirmed the user (OAuth token or e-mail + password). */
  creds: ErpCredentials | undefined;
  /** False when the ERP could not be reached; later steps skip the ERP. */
  reachable: boolean;
}

export function createErpSessionService(deps: ErpSessionServiceDeps) {
  const { db, erp, box, log } = deps;
  const inflightRefresh = new Map<string, Promise<ErpSessionSecret | undefined>>();
  // A request that read the session just before a refresh finished still holds the replaced JWT: it
  // gets the refreshed session instead of starting a second refresh.
  const lastRefresh = new LRUCache<string, { replacedJwt: string; next: ErpSessionSecret }>({ max: 10_000 });

  async function load(scope: ErpSessionScope): Promise<ErpSessionSecret | undefined> {
    const sealed = await findSealed(db, scope);
    if (sealed === undefined) return undefined;
    const plain = box.open(sealed, scopeKey(scope));
    if (plain === undefined) {
      // Altered, or moved from another scope: never used; a sync overwrites it.
      log.warn({ userId: scope.userId, entityId: scope.entityId }, 'ERP session record failed authentication; treated as missing');
      return undefined;
    }
    return JSON.parse(plain) as ErpSessionSecret;
  }

  async function store(scope: ErpSessionScope, secret: ErpSessionSecret): Promise<void> {
    await saveSealed(db, scope, box.seal(JSON.stringify(secret), scopeKey(scope)));
  }

  async function snapshotOf(scope: ErpSessionScope, secret: ErpSessionSecret | undefined): Promise<ErpSessionSnapshot> {
    return toSnapshot(scope, secret, (await deps.identity.entity(scope.entityId))?.erpEntityId, new Date());
  }

  /** Full reconcile with the ERP: profile + a new GraphQL JWT, stored encrypted. Throws ErpError. */
  async function reconcileWith(scope: ErpSessionScope, creds: ErpCredentials): Promise<ErpSessionSecret> {
    const profile = await erp.profile(creds);
    const token = await erp.issueGraphqlToken(creds);
    const now = new Date().toISOString();
    const secret: ErpSessionSecret = {
      email: creds.email,
      apiKey: creds.apiKey,
      graphqlJwt: token.token,
      graphqlJwtExpiresAt: token.expiresAt.toISOString(),
      refreshAfter: refreshAfterFor(new Date(), token.expiresAt).toISOString(),
      profile: { userId: profile.user_id, employeeId: profile.employee_id, name: profile.name, email: profile.email },
      selectedEntity: profile.selected_entity,
      checkedAt: now,
      syncedAt: now,
    };
    await store(scope, secret);
    return secret;
  }

  /**
   * Reconciles and returns the snapshot; never throws for ERP reasons. The ERP refusing the credentials
   * removes the stored session (`missing`); an unreachable ERP leaves it as it was.
   */
  async function reconcile(scope: ErpSessionScope, creds: ErpCredentials | undefined): Promise<ErpSessionSnapshot> {
    const previous = await load(scope);
    const useCreds = creds ?? (previous ? { email: previous.email, apiKey: previous.apiKey } : undefined);
    if (!useCreds) return snapshotOf(scope, previous);
    try {
      return await snapshotOf(scope, await reconcileWith(scope, useCreds));
    } catch (err) {
      if (isErpError(err, 'unauthorized')) {
        await deleteSealed(db, scope);
        return snapshotOf(scope, undefined);
      }
      if (!isErpError(err)) throw err;
      log.warn({ err: err.message, userId: scope.userId, entityId: scope.entityId }, 'ERP session reconcile failed; keeping the stored state');
      return snapshotOf(scope, previous);
    }
  }

  /** Issues a new GraphQL JWT for a due session; concurrent callers of one scope share one refresh. */
  function refresh(scope: ErpSessionScope, current: ErpSessionSecret): Promise<ErpSessionSecret | undefined> {
    const key = scopeKey(scope);
    const running = inflightRefresh.get(key);
    if (running) return running;
    const recent = lastRefresh.get(key);
    if (recent && recent.replacedJwt === current.graphqlJwt) return Promise.resolve(recent.next);
    const job = (async () => {
      try {
        const token = await erp.issueGraphqlToken({ email: current.email, apiKey: current.apiKey });
        const now = new Date().toISOString();
        const next: ErpSessionSecret = {
          ...current,
          graphqlJwt: token.token,
          graphqlJwtExpiresAt: token.expiresAt.toISOString(),
          refreshAfter: refreshAfterFor(new Date(), token.expiresAt).toISOString(),
          checkedAt: now,
          syncedAt: now,
        };
        await store(scope, next);
        lastRefresh.set(key, { replacedJwt: current.graphqlJwt, next });
        return next;
      } catch (err) {
        if (isErpError(err, 'unauthorized')) {
          await deleteSealed(db, scope);
          return undefined;
        }
        if (!isErpError(err)) throw err;
        // The current JWT is still valid: keep serving with it and retry on a later request.
        log.warn({ err: err.message }, 'ERP GraphQL token refresh failed');
        return current;
      } finally {
        inflightRefresh.delete(key);
      }
    })();
    inflightRefresh.set(key, job);
    return job;
  }

  return {
    /** GET /api/auth/erp-session: the stored snapshot (no ERP call). */
    async snapshot(scope: ErpSessionScope): Promise<ErpSessionSnapshot> {
      return snapshotOf(scope, await load(scope));
    },

    /**
     * POST /api/auth/erp-session/sync: a forced reconcile. Credentials come from `erpAccessToken`
     * (OAuth userinfo; its e-mail must be the caller's) or from the stored session.
     */
    async sync(scope: ErpSessionScope, email: string, erpAccessToken: string | undefined): Promise<ErpSessionSnapshot> {
      let creds: ErpCredentials | undefined;
      if (erpAccessToken !== undefined) {
        try {
          const info = await erp.userinfo(erpAccessToken);
          if (info.email.toLowerCase() === email.toLowerCase()) creds = { email: info.email, apiKey: info.api_key };
        } catch (err) {
          if (!isErpError(err)) throw err;
        }
      }
      return reconcile(scope, creds);
    },

    /** DELETE /api/auth/erp-session. */
    async clear(scope: ErpSessionScope): Promise<ErpSessionSnapshot> {
      await deleteSealed(db, scope);
      return snapshotOf(scope, undefined);
    },

    /**
     * Login step: asks the ERP to confirm the user, by OAuth access token (userinfo, SPEC "Login flow"
     * step 2) when given, else by e-mail + password (`POST /api/v1/sessions`). Never throws.
     */
    async loginCredentials(input: { email: string; password: string; erpAccessToken?: string | undefined }): Promise<LoginCredentials> {
      try {
        if (input.erpAccessToken !== undefined) {
          const info = await erp.userinfo(input.erpAccessToken);
          const same = info.email.toLowerCase() === input.email.trim().toLowerCase();
          return { creds: same ? { email: info.email, apiKey: info.api_key } : undefined, reachable: true };
        }
        const signIn = await erp.signIn(input.email.trim().toLowerCase(), input.password);
        return { creds: { email: signIn.email, apiKey: signIn.api_key }, reachable: true };
      } catch (err) {
        if (isErpError(err, 'unauthorized') || isErpError(err, 'invalid_response')) return { creds: undefined, reachable: true };
        if (isErpError(err)) return { creds: undefined, reachable: false };
        throw err;
      }
    },

    /** Login step: memberships from the ERP applied to the CRM (best effort, never throws). */
    async reconcileMemberships(user: { id: number; name: string }, creds: ErpCredentials): Promise<MembershipChanges | undefined> {
      try {
        return await deps.identity.applyErpMemberships(user, await erp.memberships(creds));
      } catch (err) {
        if (!isErpError(err)) throw err;
        log.warn({ err: err.message, userId: user.id }, 'ERP memberships not reconciled');
        return undefined;
      }
    },

    /** Login and change-entity step: reconcile with the given or stored credentials; `skipErp` only reads. */
    async reconcileAtLogin(scope: ErpSessionScope, creds: ErpCredentials | undefined, skipErp: boolean): Promise<ErpSessionSnapshot> {
      if (skipErp) return snapshotOf(scope, await load(scope));
      return reconcile(scope, creds);
    },

    /**
     * Change-entity step: reconciles the new scope with its stored credentials, or with those of the
     * scope being left (same user, same ERP API key). Never throws for ERP reasons.
     */
    async reconcileOnEntitySwitch(from: ErpSessionScope, to: ErpSessionScope): Promise<ErpSessionSnapshot> {
      const target = await load(to);
      if (target) return reconcile(to, undefined);
      const source = await load(from);
      return reconcile(to, source ? { email: source.email, apiKey: source.apiKey } : undefined);
    },

    /**
     * The ERP-backed guard: returns a usable GraphQL JWT or throws 428 `erp_session_required`
     * (missing, expired), 409 `erp_entity_mismatch` or 401 `erp_session_invalid` (refresh refused).
     * A due JWT (`expiring_soon`) is refreshed first, once per scope however many requests wait.
     */
    /**
     * The ERP REST credentials (e-mail + API key) of `scope`'s session, for writes done later on the user's
     * behalf (an order push); undefined when the user has no ERP session in the entity.
     */
    async credentials(scope: ErpSessionScope): Promise<ErpCredentials | undefined> {
      const secret = await load(scope);
      return secret ? { email: secret.email, apiKey: secret.apiKey } : undefined;
    },

    /**
     * Access through any usable session stored in `entityId` (the most recent first), for reads the
     * system does without a caller (workflow trigger fields); undefined when none is usable.
     */
    async anyAccess(entityId: number): Promise<ErpAccess | undefined> {
      for (const scope of await scopesOfEntity(deps.db, entityId, 5)) {
        try {
          return await this.requireAccess(scope);
        } catch {
          // expired, of another ERP entity or refused on refresh: try the next one
        }
      }
      return undefined;
    },

    async requireAccess(scope: ErpSessionScope): Promise<ErpAccess> {
      let secret = await load(scope);
      const crmErpEntityId = (await deps.identity.entity(scope.entityId))?.erpEntityId;
      const now = new Date();
      if (!secret) throw erpSessionRequired(toSnapshot(scope, undefined, crmErpEntityId, now));
      const status = statusOf(secret, crmErpEntityId, now);
      if (status === 'expired') throw erpSessionRequired(toSnapshot(scope, secret, crmErpEntityId, now));
      if (status === 'entity_mismatch') throw erpEntityMismatch(toSnapshot(scope, secret, crmErpEntityId, now));
      if (status === 'expiring_soon') {
        secret = await refresh(scope, secret);
        if (!secret) throw erpSessionInvalid(toSnapshot(scope, undefined, crmErpEntityId, now));
      }
      return { scope, graphqlJwt: secret.graphqlJwt };
    },

    /**
     * Runs a GraphQL query for an ERP-backed handler. The ERP refusing the JWT marks the stored JWT
     * expired and throws 401 `erp_session_invalid`; outages throw 503, contract breaks 502.
     */
    async graphql<S extends TSchema>(access: ErpAccess, query: string, variables: Record<string, unknown>, schema: S): Promise<Static<S>> {
      try {
        return await erp.graphql(access.graphqlJwt, query, variables, schema);
      } catch (err) {
        if (isErpError(err, 'unauthorized')) {
          const secret = await load(access.scope);
          let snapshot = await snapshotOf(access.scope, undefined);
          if (secret) {
            const expiredNow = { ...secret, graphqlJwtExpiresAt: new Date().toISOString(), refreshAfter: new Date().toISOString() };
            await store(access.scope, expiredNow);
            snapshot = await snapshotOf(access.scope, expiredNow);
          }
          throw erpSessionInvalid(snapshot);
        }
        if (isErpError(err, 'unavailable')) throw erpUnavailable();
        if (isErpError(err, 'invalid_response')) throw erpInvalidResponse();
        throw err;
      }
    },
  };
}
export type ErpSessionService = ReturnType<typeof createErpSessionService>;
