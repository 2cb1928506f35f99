/**
 * Drizzle queries of memberships: a user's employee row in an entity (active or not), the entities
 * behind ERP ids, and the batch check the realtime gateway runs on its sockets.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runStatementIn } from '../../db/statement.js';
import { ACTIVE_PAIRS } from './membership.sql.js';
import { entity } from './entity.table.js';
import { employee } from './employee.table.js';

export type EmployeeRow = typeof employee.$inferSelect;

/** Active memberships of a user: one row per entity with its employee record, by entity id. */
export async function listMemberships(db: Db, userId: number) {
  return db
    .select({ entityId: entity.id, name: entity.name, logoUrl: entity.logoUrl, employeeId: employee.id })
    .from(employee)
    .innerJoin(entity, eq(entity.id, employee.entityId))
    .where(and(eq(employee.userId, userId), eq(employee.isActive, true)))
    .orderBy(asc(entity.id));
}

/** True when `employeeId` is an active employee of `entityId`. */
export async function isActiveEmployee(db: Db, entityId: number, employeeId: number): Promise<boolean> {
  const rows = await db
    .select({ id: employee.id })
    .from(employee)
    .where(and(eq(employee.entityId, entityId), eq(employee.id, employeeId), eq(employee.isActive, true)));
  return rows.length > 0;
}

/** The ids among `employeeIds` that are active employees of `entityId`. */
export async function activeEmployeeIds(db: Db, entityId: number, employeeIds: number[]): Promise<number[]> {
  if (employeeIds.length === 0) return [];
  const rows = await db
    .select({ id: employee.id })
    .from(employee)
    .where(and(eq(employee.entityId, entityId), inArray(employee.id, employeeIds), eq(employee.isActive, true)));
  return rows.map((r) => r.id);
}

/** The `(userId, entityId)` pairs among `pairs` that are active memberships, in one statement. */
export async function activePairs(db: Db, pairs: { userId: number; entityId: number }[]): Promise<{ userId: number; entityId: number }[]> {
  if (pairs.length === 0) return [];
  const rows = await runStatementIn<{ user_id: number; entity_id: number }>(db, ACTIVE_PAIRS, [pairs.map((p) => p.userId), pairs.map((p) => p.entityId)]);
  return rows.map((r) => ({ userId: r.user_id, entityId: r.entity_id }));
}

/** The employee row of `userId` in `entityId`, active or not. */
export async function findEmployeeOfUser(db: Db, entityId: number, userId: number): Promise<EmployeeRow | undefined> {
  const [row] = await db
    .select()
    .from(employee)
    .where(and(eq(employee.entityId, entityId), eq(employee.userId, userId)))
    .limit(1);
  return row;
}

/** The employee `employeeId` of `entityId`, active or not. */
export async function findEmployeeInEntity(db: Db, entityId: number, employeeId: number): Promise<EmployeeRow | undefined> {
  const [row] = await db
    .select()
    .from(employee)
    .where(and(eq(employee.id, employeeId), eq(employee.entityId, entityId)));
  return row;
}

export async function insertEmployee(db: Db, entityId: number, values: { userId: number; name: string; erpEmployeeId: number | null }): Promise<void> {
  await db
    .insert(employee)
    .values({ entityId, ...values, isActive: true })
    .onConflictDoNothing();
}

export async function updateEmployeeMembership(
  db: Db,
  entityId: number,
  employeeId: number,
  values: { isActive: boolean; erpEmployeeId?: number },
): Promise<void> {
  await db
    .update(employee)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(employee.entityId, entityId), eq(employee.id, employeeId)));
}

/** CRM entities whose ERP id (`erp_entity_id`, else the CRM id) is in `erpIds`. */
export async function entitiesByErpIds(db: Db, erpIds: number[]): Promise<{ id: number; erpId: number }[]> {
  if (erpIds.length === 0) return [];
  const erpId = sql<number>`coalesce(${entity.erpEntityId}, ${entity.id})`;
  return db.select({ id: entity.id, erpId }).from(entity).where(inArray(erpId, erpIds));
}

/** The entity's row (name, time zone, ERP id), or undefined. */
export async function findEntity(db: Db, entityId: number) {
  const [row] = await db.select().from(entity).where(eq(entity.id, entityId)).limit(1);
  return row;
}
