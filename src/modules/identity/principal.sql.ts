/** The statements of principal.repository.ts. */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { shapedStatement, statement } from '../../db/statement.js';

/**
 * The user `userId`, their active employee row in entity `entityId`, and the grants version
 * (grants-version.table.ts; null only if its row was deleted: then nothing is remembered), as one JSON text
 * named `principal`: `[user id, entity id or null, email, erp user id, employee id or null, erp employee id,
 * grants version]` (the entity and employee are null without an active membership).
 */
function principalSelect(userId: SQLWrapper, entityId: SQLWrapper): SQL {
  return sql`select json_build_array(u.id, e.entity_id, u.email, u.erp_user_id, e.id, e.erp_employee_id, g.version)::text as principal
  from app_user u
  left join grants_version g on true
  left join employee e on e.user_id = u.id and e.entity_id = ${entityId} and e.is_active
  where u.id = ${userId}`;
}

/**
 * The principal's text (`principalSelect`) of user `userId` in entity `entityId` (placeholders).
 * Hot path of every authenticated request: one round trip, one row, a named prepared statement. One text
 * column rather than seven: the driver's cost per request grows with the columns it describes and parses
 * (about 1 µs each), and equal texts are equal principals, so the text is the key under which the service
 * remembers what it built from it; the subscriptions are read again (`LOAD_SUBSCRIPTIONS`) only when the
 * version moved.
 */
export const LOAD_PRINCIPAL = shapedStatement('crm_load_principal', {
  build: () => principalSelect(sql.placeholder('userId'), sql.placeholder('entityId')),
});

/**
 * The principal's text as a column of another statement (null when the user does not exist): for routes
 * whose own statement reads the caller's membership along, in the same round trip (guard.ts,
 * `membershipReadAlong`). `userId` and `entityId` are the verified token's; nothing read along may be used
 * before the authenticator has confirmed the principal from this text.
 */
export function principalAlong(userId: SQLWrapper, entityId: SQLWrapper): SQL {
  return sql`(${principalSelect(userId, entityId)})`;
}

/**
 * The subscriptions reaching employee `$1` (the employee's, user `$2`'s in entity `$3`, the user's global
 * ones) as one JSON text, null without any: an array of `[subscription id, level, role id, role name, base
 * codes or null, [[code, effect], …] or null]` in level order; and the grants version of the same snapshot.
 * Equal grants read alike, so the text keys the resolution cache and is parsed only when it is new; arrays
 * rather than objects, and no sorting inside, cost PostgreSQL least (a code order that changes only makes a
 * new key).
 */
export const LOAD_SUBSCRIPTIONS = statement(
  'crm_load_subscriptions',
  `
  select g.version::text as grants_version,
    (select json_agg(json_build_array(s.id, s.level, s.role_id, r.name,
         (select array_agg(rp.permission_code) from role_permission rp where rp.role_id = s.role_id),
         (select json_agg(json_build_array(o.permission_code, o.effect)) from subscription_override o where o.subscription_id = s.id))
       order by s.level, s.id)::text
      from (
        select es.id, es.role_id, 1 as level from subscription es where es.employee_id = $1
        union all
        select us.id, us.role_id, 2 as level from subscription us where us.user_id = $2 and us.entity_id = $3
        union all
        select gs.id, gs.role_id, 3 as level from subscription gs where gs.user_id = $2 and gs.entity_id is null
      ) s
      join role r on r.id = s.role_id
    ) as subscriptions
  from (select 1) one
  left join grants_version g on true`,
);
