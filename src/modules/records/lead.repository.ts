import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { likePattern, type PageRequest } from '../../platform/http/pagination.js';
import { lead } from './lead.table.js';
import { contact } from './contact.table.js';
import { pageShapeOf, runShaped, type PreparedRunner } from '../../db/prepared-sql.js';
import { LEAD_COUNT, LEAD_LIST } from './lead.sql.js';
import { lockLeadSellers, refreshLeadSellers } from './lead-seller.repository.js';

export type LeadRow = typeof lead.$inferSelect;
export type LeadValues = Partial<Pick<LeadRow, 'groupId' | 'name' | 'erpId' | 'email' | 'phone' | 'taxId'>>;

export interface LeadFilter extends PageRequest {
  groupId?: number | undefined;
  kind?: 'lead' | 'client' | undefined;
  search?: string | undefined;
  employeeId?: number | undefined;
}

/** A list row: the response's columns, timestamps already as ISO-8601 text, and the capped count. */
export interface LeadListRow {
  id: number;
  group_id: number;
  name: string;
  erp_id: string | null;
  email: string | null;
  phone: string | null;
  tax_id: string | null;
  created_at: string;
  updated_at: string;
  total: number;
}

/**
 * Newest first (the `lead_entity_id_created_at_idx` order), with the matching count capped at
 * `countCapFor(f)` (see pagination.ts), in one statement: the count is a scalar subquery on each row; an
 * empty page past the end counts separately. The seller filter is planned per call (see `RunOptions`).
 */
export async function listLeads(database: PreparedRunner, entityId: number, f: LeadFilter): Promise<{ rows: LeadListRow[]; total: number; capped: boolean }> {
  const page = pageShapeOf(f);
  const shape = { group: f.groupId !== undefined, kind: f.kind ?? null, search: Boolean(f.search), employee: f.employeeId !== undefined, ...page.shape };
  const values = { entityId, groupId: f.groupId, search: f.search ? likePattern(f.search) : undefined, employeeId: f.employeeId, ...page.values };
  const options = { planEachCall: shape.employee };
  const rows = await runShaped<LeadListRow, typeof shape>(database, LEAD_LIST, shape, values, options);
  const total =
    rows[0]?.total ?? (f.offset > 0 ? ((await runShaped<{ n: number }, typeof shape>(database, LEAD_COUNT, shape, values, options))[0]?.n ?? 0) : 0);
  return { rows, total, capped: total >= page.values.cap };
}

export async function findLead(db: Db, entityId: number, id: number): Promise<LeadRow | undefined> {
  const rows = await db
    .select()
    .from(lead)
    .where(and(eq(lead.entityId, entityId), eq(lead.id, id)));
  return rows[0];
}

export async function findLeadByErpId(db: Db, entityId: number, erpId: string): Promise<LeadRow | undefined> {
  const rows = await db
    .select()
    .from(lead)
    .where(and(eq(lead.entityId, entityId), eq(lead.erpId, erpId)));
  return rows[0];
}

/** Inserts a lead and, in the same transaction, its stored sellers (those of its group). */
export async function insertLead(db: Db, entityId: number, values: LeadValues & { groupId: number; name: string }): Promise<LeadRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(lead)
      .values({ ...values, entityId })
      .returning();
    await refreshLeadSellers(tx, entityId, { leadIds: [row!.id] });
    return row!;
  });
}

/**
 * Updates a lead in one transaction; moving it to another group moves its contacts' denormalized
 * `group_id` and replaces its inherited stored sellers too (taking the entity's seller-refresh lock first:
 * see `lockLeadSellers`).
 */
export async function updateLead(db: Db, entityId: number, id: number, values: LeadValues): Promise<LeadRow | undefined> {
  return db.transaction(async (tx) => {
    if (values.groupId !== undefined) await lockLeadSellers(tx, entityId);
    const rows = await tx
      .update(lead)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(eq(lead.entityId, entityId), eq(lead.id, id)))
      .returning();
    if (rows[0] && values.groupId !== undefined) {
      await tx
        .update(contact)
        .set({ groupId: values.groupId })
        .where(and(eq(contact.entityId, entityId), eq(contact.leadId, id)));
      await refreshLeadSellers(tx, entityId, { leadIds: [id] });
    }
    return rows[0];
  });
}
