/** The statement of membership.repository.ts. */
import { statement } from '../../db/statement.js';

/** The `(user, entity)` pairs among `$1` (user ids) and `$2` (entity ids, same length) that are active memberships. */
export const ACTIVE_PAIRS = statement(
  'identity_active_pairs',
  `select e.user_id, e.entity_id from employee e
  where e.is_active and (e.user_id, e.entity_id) in (select * from unnest($1::int[], $2::int[]))`,
);
