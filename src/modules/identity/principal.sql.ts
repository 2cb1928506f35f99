/** The statement of principal.repository.ts. */
import { statement } from '../../db/statement.js';

/**
 * The user `$1`, their active employee row in entity `$2`, and one row per subscription reaching it (the
 * employee's, the user's in the entity, the user's global ones) with the role's base codes and the
 * overrides. Hot path of every authenticated request: one round trip, a named prepared statement.
 */
export const LOAD_PRINCIPAL = statement(
  'crm_load_principal',
  `
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
  where u.id = $1`,
);
