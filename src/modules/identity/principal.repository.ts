/**
 * Loads, in one round trip, what the guard needs on every request: the user, their active membership of
 * the entity, and the subscriptions reaching it with their roles' base codes and overrides.
 */
import type { Database } from '../../db/client.js';
import type { PrincipalRecord } from '../../platform/auth/authenticator.js';
import type { SubscriptionLevel } from '../../platform/permissions/resolve.js';

interface Row {
  user_id: number;
  email: string;
  erp_user_id: number | null;
  employee_id: number | null;
  erp_employee_id: number | null;
  subscription_id: number | null;
  level: number | null;
  role_id: number | null;
  role_name: string | null;
  base_codes: string[] | null;
  overrides: { code: string; effect: 'ALLOW' | 'DENY' }[] | null;
}

// Hot path of every authenticated request: one round trip, kept as a named prepared statement.
const PRINCIPAL_SQL = `
  select u.id as user_id, u.email, u.erp_user_id, e.id as employee_id, e.erp_employee_id,
    s.id as subscription_id, s.level, s.role_id, r.name as role_name,
    (select array_agg(rp.permission_code) from role_permission rp where rp.role_id = s.role_id) as base_codes,
    (select json_agg(json_build_object('code', o.permission_code, 'effect', o.effect))
       from subscription_override o where o.subscription_id = s.id) as overrides
  from app_user u
  left join employee e on e.user_id = u.id and e.entity_id = $2 and e.is_active
  left join lateral (
    select es.id, es.role_id, 1 as level from subscription es where es.employee_id = e.id
    union all
    select us.id, us.role_id, 2 as level from subscription us where us.user_id = u.id and us.entity_id = $2
    union all
    select gs.id, gs.role_id, 3 as level from subscription gs where gs.user_id = u.id and gs.entity_id is null
  ) s on e.id is not null
  left join role r on r.id = s.role_id
  where u.id = $1`;

/** Returns the principal of `userId` in `entityId`, or `undefined` when the user does not exist. */
export async function loadPrincipal(database: Database, userId: number, entityId: number): Promise<PrincipalRecord | undefined> {
  const rows = await database.preparedQuery<Row>('crm_load_principal', PRINCIPAL_SQL, [userId, entityId]);
  const first = rows[0];
  if (!first) return undefined;
  return {
    userId: first.user_id,
    email: first.email,
    erpUserId: first.erp_user_id,
    employeeId: first.employee_id,
    erpEmployeeId: first.erp_employee_id,
    subscriptions: rows
      .filter((r) => r.subscription_id !== null)
      .map((r) => ({
        subscriptionId: r.subscription_id!,
        level: Number(r.level) as SubscriptionLevel,
        roleId: r.role_id!,
        roleName: r.role_name!,
        baseCodes: r.base_codes ?? [],
        overrides: r.overrides ?? [],
      })),
  };
}
