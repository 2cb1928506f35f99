/** Who may use the communications operator endpoints (SPEC "Errors" 5, "Endpoints / Interactions"). */
import type { Principal } from '../../../platform/auth/authenticator.js';
import { forbidden } from '../../../platform/errors.js';

/** The permission every operator endpoint needs besides the allow-list (SPEC "Endpoints / Interactions"). */
const OPERATOR_PERMISSION = 'communications.command_palette.view';

/**
 * Refuses (403 `not_privileged_operator`) a caller whose e-mail (lower-cased) is not in
 * COMMUNICATIONS_PRIVILEGED_OPERATOR_EMAILS; an empty list refuses everyone, super administrators
 * included (SPEC "Errors" 5). The one allow-list check of every operator endpoint.
 */
export function assertPrivilegedOperator(p: Principal, privilegedEmails: string[]): void {
  if (!privilegedEmails.includes(p.email.toLowerCase())) throw forbidden('not_privileged_operator', 'Only privileged communications operators may do this');
}

/**
 * The route `config` of an operator endpoint: the guard requires `communications.command_palette.view`
 * and then the allow-list, both in `onRequest`, so 401/403 come before any validation.
 */
export function operatorRoute(privilegedEmails: string[]): { auth: typeof OPERATOR_PERMISSION; authorize: (p: Principal) => void } {
  return { auth: OPERATOR_PERMISSION, authorize: (p) => assertPrivilegedOperator(p, privilegedEmails) };
}
