/** `GET /employees`: the entity's employees (sellers), for assignment pickers. Any member may read it. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { and, asc, count, eq, ilike } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { principalOf } from '../../platform/auth/guard.js';
import { likePattern, pageOf, pageQuery, type Page } from '../../platform/http/pagination.js';
import { employee } from '../admin/employee.table.js';

const EmployeeResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  erp_employee_id: Type.Union([Type.Integer(), Type.Null()]),
  is_active: Type.Boolean(),
});
type EmployeeResponse = Static<typeof EmployeeResponse>;

const EmployeeListQuery = Type.Object({
  ...pageQuery(200),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  include_inactive: Type.Optional(Type.Boolean({ default: false })),
});
type EmployeeListQuery = Static<typeof EmployeeListQuery>;

/** Employees of `entityId` by name; inactive ones only when asked. */
export async function listEmployees(db: Db, entityId: number, q: EmployeeListQuery): Promise<Page<EmployeeResponse>> {
  const where = and(
    eq(employee.entityId, entityId),
    q.include_inactive ? undefined : eq(employee.isActive, true),
    q.search ? ilike(employee.name, likePattern(q.search)) : undefined,
  );
  const [rows, totals] = await Promise.all([
    db.select().from(employee).where(where).orderBy(asc(employee.name), asc(employee.id)).limit(q.limit).offset(q.offset),
    db.select({ n: count() }).from(employee).where(where),
  ]);
  return {
    data: rows.map((r) => ({ id: r.id, name: r.name, erp_employee_id: r.erpEmployeeId, is_active: r.isActive })),
    pagination: { limit: q.limit, offset: q.offset, total: totals[0]?.n ?? 0 },
  };
}

export const employeeRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/employees',
    { config: { auth: 'jwt' }, schema: { tags: ['records'], summary: 'List employees (sellers)', querystring: EmployeeListQuery, response: { 200: pageOf(EmployeeResponse) } } },
    async (request) => listEmployees(db, principalOf(request).entityId, request.query),
  );
};
