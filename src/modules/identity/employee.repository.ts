import { and, asc, count, eq, ilike } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { likePattern } from '../../platform/http/pagination.js';
import { employee } from './employee.table.js';
import type { EmployeeListQuery } from './employee.schemas.js';

/** Employees of `entityId` ordered by name, one page, with the total; inactive ones only when asked. */
export async function listEmployees(db: Db, entityId: number, q: EmployeeListQuery) {
  const where = and(
    eq(employee.entityId, entityId),
    q.include_inactive ? undefined : eq(employee.isActive, true),
    q.search ? ilike(employee.name, likePattern(q.search)) : undefined,
  );
  const [rows, totals] = await Promise.all([
    db.select().from(employee).where(where).orderBy(asc(employee.name), asc(employee.id)).limit(q.limit).offset(q.offset),
    db.select({ n: count() }).from(employee).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}
