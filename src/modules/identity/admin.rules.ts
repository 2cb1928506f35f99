/** Checks shared by the role and subscription services. */
import { isPermissionCode } from '../../platform/permissions/catalog.js';
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
