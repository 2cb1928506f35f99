import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { PageRequest } from '../../platform/http/pagination.js';
import { employee } from '../admin/employee.table.js';
import { groupAssignment, leadAssignment } from './assignment.table.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';

export type LeadAssignmentRow = typeof leadAssignment.$inferSelect;
export type GroupAssignmentRow = typeof groupAssignment.$inferSelect;

export async function listLeadAssignments(db: Db, entityId: number, f: PageRequest & { leadId?: number | undefined; employeeId?: number | undefined }) {
  const where = and(
    eq(leadAssignment.entityId, entityId),
    f.leadId !== undefined ? eq(leadAssignment.leadId, f.leadId) : undefined,
    f.employeeId !== undefined ? eq(leadAssignment.employeeId, f.employeeId) : undefined,
  );
  const [rows, totals] = await Promise.all([
    db.select().from(leadAssignment).where(where).orderBy(desc(leadAssignment.id)).limit(f.limit).offset(f.offset),
    db.select({ n: count() }).from(leadAssignment).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function listGroupAssignments(db: Db, entityId: number, f: PageRequest & { groupId?: number | undefined; employeeId?: number | undefined }) {
  const where = and(
    eq(groupAssignment.entityId, entityId),
    f.groupId !== undefined ? eq(groupAssignment.groupId, f.groupId) : undefined,
    f.employeeId !== undefined ? eq(groupAssignment.employeeId, f.employeeId) : undefined,
  );
  const [rows, totals] = await Promise.all([
    db.select().from(groupAssignment).where(where).orderBy(desc(groupAssignment.id)).limit(f.limit).offset(f.offset),
    db.select({ n: count() }).from(groupAssignment).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** True when `employeeId` is an active employee of the entity. */
export async function isActiveEmployee(db: Db, entityId: number, employeeId: number): Promise<boolean> {
  const rows = await db
    .select({ id: employee.id })
    .from(employee)
    .where(and(eq(employee.entityId, entityId), eq(employee.id, employeeId), eq(employee.isActive, true)));
  return rows.length > 0;
}

/** Ids among `groupIds` that are the entity's groups. */
export async function existingGroupIds(db: Db, entityId: number, groupIds: number[]): Promise<number[]> {
  const rows = await db.select({ id: crmGroup.id }).from(crmGroup).where(and(eq(crmGroup.entityId, entityId), inArray(crmGroup.id, groupIds)));
  return rows.map((r) => r.id);
}

/** Inserts the missing assignments (idempotent); returns only the new rows. */
export async function insertGroupAssignments(db: Db, entityId: number, employeeId: number, groupIds: number[]): Promise<GroupAssignmentRow[]> {
  return db
    .insert(groupAssignment)
    .values(groupIds.map((groupId) => ({ entityId, employeeId, groupId })))
    .onConflictDoNothing()
    .returning();
}

export async function groupAssignmentsOf(db: Db, entityId: number, employeeId: number, groupIds: number[]): Promise<GroupAssignmentRow[]> {
  return db
    .select()
    .from(groupAssignment)
    .where(and(eq(groupAssignment.entityId, entityId), eq(groupAssignment.employeeId, employeeId), inArray(groupAssignment.groupId, groupIds)))
    .orderBy(groupAssignment.groupId);
}

export async function deleteGroupAssignment(db: Db, entityId: number, id: number): Promise<GroupAssignmentRow | undefined> {
  const rows = await db.delete(groupAssignment).where(and(eq(groupAssignment.entityId, entityId), eq(groupAssignment.id, id))).returning();
  return rows[0];
}

/** Inserts the assignment unless present; returns the row and whether it is new. */
export async function upsertLeadAssignment(db: Db, entityId: number, leadId: number, employeeId: number) {
  const inserted = await db.insert(leadAssignment).values({ entityId, leadId, employeeId }).onConflictDoNothing().returning();
  if (inserted[0]) return { row: inserted[0], created: true };
  const rows = await db
    .select()
    .from(leadAssignment)
    .where(and(eq(leadAssignment.entityId, entityId), eq(leadAssignment.leadId, leadId), eq(leadAssignment.employeeId, employeeId)));
  return { row: rows[0]!, created: false };
}

export async function deleteLeadAssignment(db: Db, entityId: number, id: number): Promise<LeadAssignmentRow | undefined> {
  const rows = await db.delete(leadAssignment).where(and(eq(leadAssignment.entityId, entityId), eq(leadAssignment.id, id))).returning();
  return rows[0];
}

/** Leads (id, group) of the given groups, for per-lead events of a group assignment change. */
export async function leadsOfGroups(db: Db, entityId: number, groupIds: number[]): Promise<{ id: number; groupId: number }[]> {
  if (groupIds.length === 0) return [];
  return db.select({ id: lead.id, groupId: lead.groupId }).from(lead).where(and(eq(lead.entityId, entityId), inArray(lead.groupId, groupIds)));
}
