/**
 * Pure permission resolution (SPEC "Permission resolution", DESIGN "Tenancy and permissions"). The
 * database part (one query) belongs to the identity module (`principal.repository.ts`); this file only decides.
 */
import { ALL_PERMISSION_CODES, IMPLICATIONS } from './catalog.js';

/** SPEC levels in priority order: 1 employee+entity, 2 user+entity, 3 user-global. */
export type SubscriptionLevel = 1 | 2 | 3;
const LEVEL_SOURCE = { 1: 'employee', 2: 'user', 3: 'global' } as const;
type RoleSource = (typeof LEVEL_SOURCE)[SubscriptionLevel];

export const SUPER_ADMIN_ROLE = 'super_admin';

export interface SubscriptionGrant {
  subscriptionId: number;
  level: SubscriptionLevel;
  roleId: number;
  roleName: string;
  baseCodes: string[];
  overrides: { code: string; effect: 'ALLOW' | 'DENY' }[];
}

/** Why a code is held: the role's base set, an ALLOW override, implied by another held code, or super_admin. */
export type GrantReason =
  | { source: 'super_admin'; subscriptionId: number }
  | { source: 'role'; roleId: number; roleName: string }
  | { source: 'allow_override'; subscriptionId: number }
  | { source: 'implied'; by: string };

export interface Resolution {
  /** Every subscription reaching the entity, as given. */
  subscriptions: readonly SubscriptionGrant[];
  /** The subscription that decided, or null when the user has none reaching this entity. */
  effective: SubscriptionGrant | null;
  roleSource: RoleSource | null;
  superAdmin: boolean;
  codes: Set<string>;
  /** First reason found for each held code. */
  reasons: Map<string, GrantReason>;
  /** Codes removed by a DENY override, with the subscription that denied them. */
  denied: Map<string, { subscriptionId: number }>;
}

/**
 * Resolves the effective codes from the user's subscriptions reaching the active entity (any order, at
 * most one per level). A global super_admin gets every code; otherwise the highest-priority subscription
 * gives its role's base codes plus ALLOW overrides, closed under implications, minus DENY overrides
 * (a DENY always wins). A super_admin role on the deciding subscription also grants every code.
 */
export function resolvePermissions(subscriptions: readonly SubscriptionGrant[]): Resolution {
  const global = subscriptions.find((s) => s.level === 3);
  const effective = [...subscriptions].sort((a, b) => a.level - b.level)[0] ?? null;
  const superAdminSub = global?.roleName === SUPER_ADMIN_ROLE ? global : effective?.roleName === SUPER_ADMIN_ROLE ? effective : undefined;
  const reasons = new Map<string, GrantReason>();
  const denied = new Map<string, { subscriptionId: number }>();

  if (superAdminSub) {
    for (const code of ALL_PERMISSION_CODES) reasons.set(code, { source: 'super_admin', subscriptionId: superAdminSub.subscriptionId });
    return {
      subscriptions,
      effective: superAdminSub,
      roleSource: LEVEL_SOURCE[superAdminSub.level],
      superAdmin: true,
      codes: new Set(ALL_PERMISSION_CODES),
      reasons,
      denied,
    };
  }
  if (!effective) return { subscriptions, effective: null, roleSource: null, superAdmin: false, codes: new Set(), reasons, denied };

  for (const code of effective.baseCodes) reasons.set(code, { source: 'role', roleId: effective.roleId, roleName: effective.roleName });
  for (const o of effective.overrides) {
    if (o.effect === 'ALLOW' && !reasons.has(o.code)) reasons.set(o.code, { source: 'allow_override', subscriptionId: effective.subscriptionId });
  }
  const queue = [...reasons.keys()];
  while (queue.length > 0) {
    const code = queue.shift()!;
    for (const implied of IMPLICATIONS.get(code) ?? []) {
      if (!reasons.has(implied)) {
        reasons.set(implied, { source: 'implied', by: code });
        queue.push(implied);
      }
    }
  }
  for (const o of effective.overrides) {
    if (o.effect === 'DENY') {
      reasons.delete(o.code);
      denied.set(o.code, { subscriptionId: effective.subscriptionId });
    }
  }
  return {
    subscriptions,
    effective,
    roleSource: LEVEL_SOURCE[effective.level],
    superAdmin: false,
    codes: new Set(reasons.keys()),
    reasons,
    denied,
  };
}
