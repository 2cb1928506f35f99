/** The statement of subscription.repository.ts. */
import { sql } from 'drizzle-orm';
import { shapedStatement } from '../../db/statement.js';

/**
 * Whether the subject (placeholder `userId`, or `employeeId` through its user) holds a global
 * subscription with the role named `role`.
 */
export const IS_SUPER_ADMIN_SUBJECT = shapedStatement('identity_is_super_admin_subject', {
  build: () => sql`select exists (
          select 1 from subscription s join role r on r.id = s.role_id
           where s.entity_id is null and r.name = ${sql.placeholder('role')}
             and s.user_id = coalesce(${sql.placeholder('userId')}::int, (select e.user_id from employee e where e.id = ${sql.placeholder('employeeId')}::int))
        ) as yes`,
});
