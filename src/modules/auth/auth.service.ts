/**
 * Login, entity switch and memberships (SPEC "Authentication and session", "Login flow"). Invalid
 * e-mail and wrong password are indistinguishable (401 `invalid_credentials`); a valid user without a
 * membership in the requested entity gets 403 `entity_not_allowed`.
 */
import type { Db } from '../../db/client.js';
import type { Authenticator, Principal } from '../../platform/auth/authenticator.js';
import type { CrmTokenClaims, TokenService } from '../../platform/auth/jwt.js';
import { verifyPassword } from '../../platform/auth/password.js';
import { forbidden, unauthorized } from '../../platform/errors.js';
import { missingErpSession, type ErpSessionSnapshot } from './erp-session.schemas.js';
import type { LoginBody, MyEntitiesResponse, TokenResponse } from './auth.schemas.js';
import { findUserByEmail, findUserById, listMemberships } from './auth.repository.js';

export const WEB_CLIENT_KIND = 'web';

/** Reconciles the ERP session at login; best effort, never blocks the CRM login. */
export type ErpSessionReconciler = (input: {
  userId: number;
  entityId: number;
  clientKind: string;
  email: string;
  password: string;
}) => Promise<ErpSessionSnapshot>;

export interface AuthServiceDeps {
  db: Db;
  tokens: TokenService;
  authenticator: Authenticator;
  /** Filled by the ERP integration; until then the snapshot is `missing`. */
  reconcileErpSession?: ErpSessionReconciler;
}

export function createAuthService(deps: AuthServiceDeps) {
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
    /** POST /api/auth/login. */
    async login(body: LoginBody): Promise<TokenResponse> {
      const user = await findUserByEmail(deps.db, body.email);
      const ok = await verifyPassword(user?.passwordHash, body.password);
      if (!user || !ok) throw unauthorized('invalid_credentials', 'E-mail or password is incorrect');
      const principal = await deps.authenticator.principalFor(user.id, body.entity_id, WEB_CLIENT_KIND);
      if (!principal) throw forbidden('entity_not_allowed', `You are not a member of entity ${body.entity_id}`);
      const erpSession = deps.reconcileErpSession
        ? await deps.reconcileErpSession({ userId: user.id, entityId: body.entity_id, clientKind: WEB_CLIENT_KIND, email: user.email, password: body.password })
        : missingErpSession(body.entity_id, WEB_CLIENT_KIND);
      return issueToken(user.id, user.name, body.entity_id, WEB_CLIENT_KIND, erpSession);
    },

    /** POST /api/auth/change-entity: a new token for another entity the user belongs to. */
    async changeEntity(caller: Principal, entityId: number): Promise<TokenResponse> {
      const user = await findUserById(deps.db, caller.userId);
      if (!user) throw unauthorized('invalid_token', 'The user no longer exists');
      return issueToken(user.id, user.name, entityId, caller.clientKind, missingErpSession(entityId, caller.clientKind));
    },

    /** GET /api/auth/my-entities. */
    async myEntities(caller: Principal): Promise<MyEntitiesResponse> {
      const rows = await listMemberships(deps.db, caller.userId);
      return {
        data: rows.map((r) => ({ id: r.entityId, name: r.name, logo_url: r.logoUrl, employee_id: r.employeeId, active: r.entityId === caller.entityId })),
      };
    },
  };
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
