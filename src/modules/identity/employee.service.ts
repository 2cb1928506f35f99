/** Employees (sellers) of the caller's entity, for assignment pickers. */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { toPage, type Page } from '../../platform/http/pagination.js';
import { listEmployees } from './employee.repository.js';
import type { EmployeeListQuery, EmployeeResponse } from './employee.schemas.js';

export function createEmployeeService(deps: { db: Db }) {
  return {
    async list(caller: Principal, q: EmployeeListQuery): Promise<Page<EmployeeResponse>> {
      const { rows, total } = await listEmployees(deps.db, caller.entityId, q);
      return toPage(q, rows, total, (r) => ({ id: r.id, name: r.name, erp_employee_id: r.erpEmployeeId, is_active: r.isActive }));
    },
  };
}
export type EmployeeService = ReturnType<typeof createEmployeeService>;
