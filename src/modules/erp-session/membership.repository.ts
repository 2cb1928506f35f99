import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { entity } from '../admin/entity.table.js';
import { employee } from '../admin/employee.table.js';

/** CRM entities whose ERP id (`erp_entity_id`, else the CRM id) is in `erpIds`. */
export async function entitiesByErpIds(db: Db, erpIds: number[]): Promise<{ id: number; erpId: number }[]> {
  if (erpIds.length === 0) return [];
  const erpId = sql<number>`coalesce(${entity.erpEntityId}, ${entity.id})`;
  return db.select({ id: entity.id, erpId }).from(entity).where(inArray(erpId, erpIds));
}

export async function findEmployee(db: Db, entityId: number, userId: number) {
  const [row] = await db.select().from(employee).where(and(eq(employee.entityId, entityId), eq(employee.userId, userId))).limit(1);
  return row;
}

export async function insertEmployee(db: Db, entityId: number, values: { userId: number; name: string; erpEmployeeId: number | null }): Promise<void> {
  await db.insert(employee).values({ entityId, ...values, isActive: true }).onConflictDoNothing();
}

export async function updateEmployeeMembership(db: Db, entityId: number, employeeId: number, values: { isActive: boolean; erpEmployeeId?: number }): Promise<void> {
  await db
    .update(employee)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(employee.entityId, entityId), eq(employee.id, employeeId)));
}
