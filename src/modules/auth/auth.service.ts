/**
 * Login, entity switch and memberships (SPEC "Authentication and session", "Login flow"). Invalid
 * e-mail and wrong password are indistinguishable (401 `invalid_credentials`); a valid user without a
 * membership in the requested entity gets 403 `entity_not_allowed`.
 */
import type { Authenticator, Principal } from '../../platform/auth/authenticator.js';
import type { CrmTokenClaims, TokenService } from '../../platform/auth/jwt.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from '../../platform/auth/password.js';
import { badRequest, forbidden, unauthorized } from '../../platform/errors.js';
import { missingErpSession, type ErpSessionSnapshot } from '../erp-session/index.js';
import type { LoginBody, MyEntitiesResponse, TokenResponse } from './auth.schemas.js';
import type { IdentityService } from '../identity/index.js';
import type { AuditTrail } from '../audit/index.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../platform/errors.js';

const WEB_CLIENT_KIND = 'web';

/** A session scope as the ERP session module keys it. */
interface ErpScope {
  userId: number;
  entityId: number;
  clientKind: string;
}

/** ERP credentials confirmed at login (opaque to this module). */
interface ErpLoginCredentials {
  email: string;
  apiKey: string;
}

/**
 * What login needs from the ERP integration (src/modules/erp-session). Every call is best effort and
 * never throws for ERP reasons: an unreachable ERP never blocks a CRM login.
 */
export interface ErpLoginBridge {
  loginCredentials(input: {
    email: string;
    password: string;
    erpAccessToken?: string | undefined;
  }): Promise<{ creds: ErpLoginCredentials | undefined; reachable: boolean }>;
  reconcileMemberships(user: { id: number; name: string }, creds: ErpLoginCredentials): Promise<unknown>;
  reconcileAtLogin(scope: ErpScope, creds: ErpLoginCredentials | undefined, skipErp: boolean): Promise<ErpSessionSnapshot>;
  reconcileOnEntitySwitch(from: ErpScope, to: ErpScope): Promise<ErpSessionSnapshot>;
}

/**
 * Hook run after a successful login or entity switch (the interactions module plugs in its
 * COMMUNICATIONS_AUTO_LOGIN_ON_AUTH login and COMMUNICATIONS_USER_WEBHOOK_RESYNC_ENABLED re-sync here).
 * Failures are logged, never block the login.
 */
export type AuthenticatedHook = (event: { userId: number; entityId: number; clientKind: string; reason: 'login' | 'change_entity' }) => Promise<void>;

/** Shortest password accepted when AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP sets it. */
const BOOTSTRAP_MIN_PASSWORD_LENGTH = MIN_PASSWORD_LENGTH;

export interface AuthServiceDeps {
  /** Users and memberships (the identity module). */
  identity: Pick<IdentityService, 'findUserByEmail' | 'findUserById' | 'setPasswordHash' | 'memberships'>;
  tokens: TokenService;
  authenticator: Authenticator;
  /** The ERP integration; without it the ERP session is always `missing`. */
  erp?: ErpLoginBridge;
  /** AUTH_ALLOW_FIRST_LOGIN_PASSWORD_BOOTSTRAP. */
  allowFirstLoginPasswordBootstrap?: boolean;
  onAuthenticated?: AuthenticatedHook;
  log?: { warn(obj: object, msg: string): void };
  /** Records each login, successful or refused (issue 54), on `db`. */
  audit?: { trail: AuditTrail; db: Db };
}

export function createAuthService(deps: AuthServiceDeps) {
  async function afterAuthenticated(event: Parameters<AuthenticatedHook>[0]): Promise<void> {
    if (!deps.onAuthenticated) return;
    try {
      await deps.onAuthenticated(event);
    } catch (err) {
      deps.log?.warn({ err }, 'post-authentication hook failed');
    }
  }

  async function issueToken(userId: number, name: string, entityId: number, clientKind: string, erpSession: ErpSessionSnapshot): Promise<TokenResponse> {
    const principal = await deps.authenticator.principalFor(userId, entityId, clientKind);
    if (!principal) throw forbidden('entity_not_allowed', `You are not a member of entity ${entityId}`);
    const claims = claimsFor(principal);
    const { token, expiresIn } = await deps.tokens.sign(claims);
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      user: {
        id: userId,
        email: principal.email,
        name,
        entity_id: entityId,
        employee_id: principal.employeeId,
        role_id: claims.role_id,
        role_name: claims.role_name,
        role_source: claims.role_source,
      },
      erp_session: erpSession,
    };
  }

  return {
    /**
     * POST /api/auth/login (SPEC "Login flow"). The CRM password decides; the ERP is asked who the user
     * is (OAuth token or e-mail + password) to reconcile memberships and the ERP session, best effort.
     * A user without a password may set it on first login when the bootstrap flag is on and the ERP
     * confirms the user (docs/decisions.md).
     */
    async login(body: LoginBody): Promise<TokenResponse> {
      if (!deps.audit) return login(body);
      const { trail, db } = deps.audit;
      let response: TokenResponse;
      try {
        response = await login(body);
      } catch (err) {
        if (err instanceof AppError && err.status < 500) {
          // A refused login is recorded in the entity's chain when the address is a member of it, else outside any
          // entity (docs/privacy.md): the attempted address is kept, the password never.
          const user = await deps.identity.findUserByEmail(body.email);
          const member = user !== undefined && (await deps.identity.memberships(user.id)).some((m) => m.entityId === body.entity_id);
          await trail.record(db, {
            entityId: member ? body.entity_id : null,
            actor: { kind: 'user', userId: user?.id ?? null, employeeId: null },
            action: 'auth.login_failed',
            target: user ? { type: 'app_user', id: user.id } : undefined,
            details: { email: body.email.toLowerCase(), entity_id: body.entity_id, code: err.code },
          });
        }
        throw err;
      }
      await trail.record(db, {
        entityId: response.user.entity_id,
        actor: { kind: 'user', userId: response.user.id, employeeId: response.user.employee_id },
        action: 'auth.login',
        target: { type: 'app_user', id: response.user.id },
      });
      return response;
    },

    changeEntity,
    myEntities,
  };

  async function login(body: LoginBody): Promise<TokenResponse> {
    const user = await deps.identity.findUserByEmail(body.email);
    const invalid = () => unauthorized('invalid_credentials', 'E-mail or password is incorrect');
    const erpInput = { email: body.email, password: body.password, erpAccessToken: body.erp_access_token };
    let erpLogin: Awaited<ReturnType<ErpLoginBridge['loginCredentials']>> | undefined;
    if (user && user.passwordHash === null && deps.allowFirstLoginPasswordBootstrap && deps.erp) {
      // The same argon2 work as a user with a password, so that the answer's time does not tell which users have none.
      await verifyPassword(null, body.password);
      erpLogin = await deps.erp.loginCredentials(erpInput);
      if (!erpLogin.creds) throw invalid();
      if (body.password.length < BOOTSTRAP_MIN_PASSWORD_LENGTH) {
        throw badRequest('password_too_short', `The first password must have at least ${BOOTSTRAP_MIN_PASSWORD_LENGTH} characters`);
      }
      if (body.password.length > MAX_PASSWORD_LENGTH)
        throw badRequest('password_too_long', `The first password must have at most ${MAX_PASSWORD_LENGTH} characters`);
      await deps.identity.setPasswordHash(user.id, await hashPassword(body.password));
    } else {
      const ok = await verifyPassword(user?.passwordHash, body.password);
      if (!user || !ok) throw invalid();
      erpLogin = deps.erp ? await deps.erp.loginCredentials(erpInput) : undefined;
    }
    if (deps.erp && erpLogin?.creds) await deps.erp.reconcileMemberships({ id: user.id, name: user.name }, erpLogin.creds);
    const principal = await deps.authenticator.principalFor(user.id, body.entity_id, WEB_CLIENT_KIND);
    if (!principal) throw forbidden('entity_not_allowed', `You are not a member of entity ${body.entity_id}`);
    const scope = { userId: user.id, entityId: body.entity_id, clientKind: WEB_CLIENT_KIND };
    const erpSession = deps.erp
      ? await deps.erp.reconcileAtLogin(scope, erpLogin?.creds, erpLogin?.reachable === false)
      : missingErpSession(body.entity_id, WEB_CLIENT_KIND);
    const response = await issueToken(user.id, user.name, body.entity_id, WEB_CLIENT_KIND, erpSession);
    await afterAuthenticated({ ...scope, reason: 'login' });
    return response;
  }

  /** POST /api/auth/change-entity: a new token for another entity, with that entity's ERP session reconciled. */
  async function changeEntity(caller: Principal, entityId: number): Promise<TokenResponse> {
    const user = await deps.identity.findUserById(caller.userId);
    if (!user) throw unauthorized('invalid_token', 'The user no longer exists');
    const principal = await deps.authenticator.principalFor(user.id, entityId, caller.clientKind);
    if (!principal) throw forbidden('entity_not_allowed', `You are not a member of entity ${entityId}`);
    const to = { userId: user.id, entityId, clientKind: caller.clientKind };
    const erpSession = deps.erp
      ? await deps.erp.reconcileOnEntitySwitch({ userId: user.id, entityId: caller.entityId, clientKind: caller.clientKind }, to)
      : missingErpSession(entityId, caller.clientKind);
    const response = await issueToken(user.id, user.name, entityId, caller.clientKind, erpSession);
    await afterAuthenticated({ ...to, reason: 'change_entity' });
    return response;
  }

  /** GET /api/auth/my-entities. */
  async function myEntities(caller: Principal): Promise<MyEntitiesResponse> {
    const rows = await deps.identity.memberships(caller.userId);
    return {
      data: rows.map((r) => ({ id: r.entityId, name: r.name, logo_url: r.logoUrl, employee_id: r.employeeId, active: r.entityId === caller.entityId })),
    };
  }
}
export type AuthService = ReturnType<typeof createAuthService>;

/** SPEC "CRM session token" payload from a resolved principal. */
export function claimsFor(principal: Omit<Principal, 'claims' | 'expiresAt'>): CrmTokenClaims {
  const subs = principal.resolution;
  const byLevel = (level: number) => subs.subscriptions.find((s) => s.level === level);
  const effective = subs.effective;
  return {
    id: principal.userId,
    email: principal.email,
    erp_user_id: principal.erpUserId,
    role_id: effective?.roleId ?? null,
    role_name: effective?.roleName ?? null,
    entity_id: principal.entityId,
    employee_role_id: byLevel(1)?.roleId ?? null,
    user_role_id: byLevel(2)?.roleId ?? byLevel(3)?.roleId ?? null,
    role_source: subs.roleSource,
    employee_id: principal.employeeId,
    erp_employee_id: principal.erpEmployeeId,
    client_kind: principal.clientKind,
  };
}
