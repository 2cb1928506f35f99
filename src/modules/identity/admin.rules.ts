/**
 * Checks shared by the role and subscription services. Delegated administration cannot escalate: a caller
 * who is not super_admin grants only codes they hold themselves, never changes their own access, and never
 * touches a super_admin's subscriptions (docs/decisions.md "Delegated administration").
 */
import { isPermissionCode, withImplications } from '../../platform/permissions/catalog.js';
import { SUPER_ADMIN_ROLE } from '../../platform/permissions/resolve.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { forbidden, validationFailed } from '../../platform/errors.js';

/** 400 `validation_failed` listing every code not in the catalogue. */
export function assertKnownCodes(codes: readonly string[], field: string): void {
  const errors = codes.flatMap((code, i) => (isPermissionCode(code) ? [] : [{ field: `${field}/${i}`, message: `unknown permission code ${code}` }]));
  if (errors.length > 0) throw validationFailed(errors, `Unknown permission codes: ${codes.filter((c) => !isPermissionCode(c)).join(', ')}`);
}

/** 403 `super_admin_required` unless the caller is a super_admin (SPEC: only a super_admin grants super_admin). */
export function assertSuperAdmin(caller: Principal, what: string): void {
  if (!caller.resolution.superAdmin) throw forbidden('super_admin_required', `Only a super_admin may ${what}`);
}

export function isSuperAdminRole(name: string): boolean {
  return name === SUPER_ADMIN_ROLE;
}

/**
 * 403 `grant_exceeds_own_permissions` when a caller who is not super_admin would grant (as a role's base
 * codes, an ALLOW override or by assigning a role) a code, or a code it implies, that they do not hold.
 */
export function assertCanGrant(caller: Principal, codes: readonly string[], what: string): void {
  if (caller.resolution.superAdmin) return;
  const missing = [...withImplications(codes)].filter((c) => !caller.permissions.has(c)).sort();
  if (missing.length > 0) {
    throw forbidden('grant_exceeds_own_permissions', `You cannot grant ${what} codes you do not hold: ${missing.join(', ')}`, { codes: missing });
  }
}

/** 403 `own_access_locked` when a caller who is not super_admin would change a role they hold. */
export function assertNotOwnRole(caller: Principal, roleId: number): void {
  if (caller.resolution.superAdmin) return;
  if (caller.resolution.subscriptions.some((s) => s.roleId === roleId)) {
    throw forbidden('own_access_locked', 'You cannot change a role you hold yourself');
  }
}

/** 403 `own_access_locked` when a caller who is not super_admin would change a subscription of their own. */
export function assertNotOwnSubscription(caller: Principal, subject: { employeeId: number | null; userId: number | null }): void {
  if (caller.resolution.superAdmin) return;
  if (subject.employeeId === caller.employeeId || subject.userId === caller.userId) {
    throw forbidden('own_access_locked', 'You cannot change your own subscriptions');
  }
}
