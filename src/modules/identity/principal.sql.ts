/** The statement of principal.repository.ts. */
import { statement } from '../../db/statement.js';

/**
 * The user `$1`, their active employee row in entity `$2`, and the subscriptions reaching it (the employee's,
 * the user's in the entity, the user's global ones) with each role's base codes and the overrides, as one
 * JSON text of `SubscriptionGrant[]` (platform/permissions/resolve.ts) in a fixed order: equal grants give
 * equal texts, so the text keys the resolution cache and is parsed only when it is new. Hot path of every
 * authenticated request: one round trip, one row, a named prepared statement.
 */
export const LOAD_PRINCIPAL = statement(
  'crm_load_principal',
  `
  select u.id as user_id, u.email, u.erp_user_id, e.id as employee_id, e.erp_employee_id,
    coalesce((
      select json_agg(json_build_object(
          'subscriptionId', s.id, 'level', s.level, 'roleId', s.role_id, 'roleName', r.name,
          'baseCodes', coalesce((select array_agg(rp.permission_code order by rp.permission_code) from role_permission rp where rp.role_id = s.role_id), '{}'),
          'overrides', coalesce((select json_agg(json_build_object('code', o.permission_code, 'effect', o.effect) order by o.permission_code)
                                   from subscription_override o where o.subscription_id = s.id), '[]'))
        order by s.level, s.id)
      from (
        select es.id, es.role_id, 1 as level from subscription es where es.employee_id = e.id
        union all
        select us.id, us.role_id, 2 as level from subscription us where us.user_id = u.id and us.entity_id = $2
        union all
        select gs.id, gs.role_id, 3 as level from subscription gs where gs.user_id = u.id and gs.entity_id is null
      ) s
      join role r on r.id = s.role_id
      where e.id is not null
    )::text, '[]') as subscriptions
  from app_user u
  left join employee e on e.user_id = u.id and e.entity_id = $2 and e.is_active
  where u.id = $1`,
);
