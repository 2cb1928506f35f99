import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { PageRequest } from '../../platform/http/pagination.js';
import { groupAssignment, leadAssignment } from './assignment.table.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';
import { refreshLeadSellers } from './lead-seller.repository.js';
import { savepoint } from '../../platform/transactions/transaction.js';

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

/** Ids among `groupIds` that are the entity's groups. */
export async function existingGroupIds(db: Db, entityId: number, groupIds: number[]): Promise<number[]> {
  const rows = await db
    .select({ id: crmGroup.id })
    .from(crmGroup)
    .where(and(eq(crmGroup.entityId, entityId), inArray(crmGroup.id, groupIds)));
  return rows.map((r) => r.id);
}

/**
 * Inserts the missing assignments (idempotent) and refreshes the stored sellers of the leads of the newly
 * assigned groups, in one transaction; returns only the new rows.
 */
export async function insertGroupAssignments(db: Db, entityId: number, employeeId: number, groupIds: number[]): Promise<GroupAssignmentRow[]> {
  return savepoint(db, async (tx) => {
    const inserted = await tx
      .insert(groupAssignment)
      .values(groupIds.map((groupId) => ({ entityId, employeeId, groupId })))
      .onConflictDoNothing()
      .returning();
    await refreshLeadSellers(tx, entityId, { groupIds: inserted.map((r) => r.groupId) });
    return inserted;
  });
}

export async function groupAssignmentsOf(db: Db, entityId: number, employeeId: number, groupIds: number[]): Promise<GroupAssignmentRow[]> {
  return db
    .select()
    .from(groupAssignment)
    .where(and(eq(groupAssignment.entityId, entityId), eq(groupAssignment.employeeId, employeeId), inArray(groupAssignment.groupId, groupIds)))
    .orderBy(groupAssignment.groupId);
}

/** Deletes the assignment and refreshes the stored sellers of its group's leads, in one transaction. */
export async function deleteGroupAssignment(db: Db, entityId: number, id: number): Promise<GroupAssignmentRow | undefined> {
  return savepoint(db, async (tx) => {
    const [row] = await tx
      .delete(groupAssignment)
      .where(and(eq(groupAssignment.entityId, entityId), eq(groupAssignment.id, id)))
      .returning();
    if (row) await refreshLeadSellers(tx, entityId, { groupIds: [row.groupId] });
    return row;
  });
}

/**
 * Inserts the assignment unless present, refreshing the lead's stored sellers when it is new (one
 * transaction); returns the row and whether it is new.
 */
export async function upsertLeadAssignment(db: Db, entityId: number, leadId: number, employeeId: number) {
  return savepoint(db, async (tx) => {
    const [inserted] = await tx.insert(leadAssignment).values({ entityId, leadId, employeeId }).onConflictDoNothing().returning();
    if (inserted) {
      await refreshLeadSellers(tx, entityId, { leadIds: [leadId] });
      return { row: inserted, created: true };
    }
    const rows = await tx
      .select()
      .from(leadAssignment)
      .where(and(eq(leadAssignment.entityId, entityId), eq(leadAssignment.leadId, leadId), eq(leadAssignment.employeeId, employeeId)));
    return { row: rows[0]!, created: false };
  });
}

/** Deletes the assignment and refreshes the lead's stored sellers, in one transaction. */
export async function deleteLeadAssignment(db: Db, entityId: number, id: number): Promise<LeadAssignmentRow | undefined> {
  return savepoint(db, async (tx) => {
    const [row] = await tx
      .delete(leadAssignment)
      .where(and(eq(leadAssignment.entityId, entityId), eq(leadAssignment.id, id)))
      .returning();
    if (row) await refreshLeadSellers(tx, entityId, { leadIds: [row.leadId] });
    return row;
  });
}

/** Leads (id, group) of the given groups, for per-lead events of a group assignment change. */
export async function leadsOfGroups(db: Db, entityId: number, groupIds: number[]): Promise<{ id: number; groupId: number }[]> {
  if (groupIds.length === 0) return [];
  return db
    .select({ id: lead.id, groupId: lead.groupId })
    .from(lead)
    .where(and(eq(lead.entityId, entityId), inArray(lead.groupId, groupIds)));
}
