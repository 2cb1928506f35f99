import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { likePattern, type PageRequest } from '../../platform/http/pagination.js';
import { lead } from './lead.table.js';
import { contact } from './contact.table.js';
import { pageShapeOf, runShaped, type PreparedRunner } from '../../db/prepared-sql.js';
import type { PageItems, PageReader } from '../../db/paging.js';
import { LEAD_COUNT, LEAD_LIST } from './lead.sql.js';
import { lockLeadSellers, refreshLeadSellers } from './lead-seller.repository.js';
import { savepoint } from '../../platform/transactions/transaction.js';

export type LeadRow = typeof lead.$inferSelect;
export type LeadValues = Partial<Pick<LeadRow, 'groupId' | 'name' | 'erpId' | 'email' | 'phone' | 'taxId'>>;

export interface LeadFilter extends PageRequest {
  groupId?: number | undefined;
  kind?: 'lead' | 'client' | undefined;
  search?: string | undefined;
  employeeId?: number | undefined;
  labelAny?: readonly number[] | undefined;
  labelAll?: readonly number[] | undefined;
}

/** What of a filter the statement's text depends on, and the values of its placeholders. */
function statementOf(entityId: number, f: LeadFilter) {
  const page = pageShapeOf(f);
  const filter = {
    group: f.groupId !== undefined,
    kind: f.kind ?? null,
    search: Boolean(f.search),
    employee: f.employeeId !== undefined,
    labels: f.labelAny !== undefined || f.labelAll !== undefined,
  };
  const values = {
    entityId,
    groupId: f.groupId,
    search: f.search ? likePattern(f.search) : undefined,
    employeeId: f.employeeId,
    labelAny: f.labelAny ?? null,
    labelAll: f.labelAll ?? null,
    ...page.values,
  };
  return { shape: { ...filter, ...page.shape }, values, options: { planEachCall: filter.employee } };
}

/**
 * A page of leads, newest first (the `lead_entity_id_created_at_idx` order), as one row: the leads' stored
 * list items (`LeadResponse` as JSON text) joined; with `counted`, the matching count capped at
 * `countCapFor(f)` (see paging.ts) as `total`, in the same statement; and the reader's principal text as
 * `principal`, read along. Scoped by `reader.entityId`. The seller filter is planned per call (see `RunOptions`).
 */
export async function listLeads(database: PreparedRunner, reader: PageReader, f: LeadFilter, counted: boolean): Promise<PageItems> {
  const { shape, values, options } = statementOf(reader.entityId, f);
  const [page] = await runShaped<PageItems, typeof shape & { counted: boolean }>(
    database,
    LEAD_LIST,
    { ...shape, counted },
    { ...values, userId: reader.userId },
    options,
  );
  return page!;
}

/** The matching count capped at `countCapFor(f)`, alone (a page past the end). */
export async function countLeads(database: PreparedRunner, entityId: number, f: LeadFilter): Promise<number> {
  const { shape, values, options } = statementOf(entityId, f);
  return (await runShaped<{ n: number }, typeof shape>(database, LEAD_COUNT, shape, values, options))[0]?.n ?? 0;
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
  return savepoint(db, async (tx) => {
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
  return savepoint(db, async (tx) => {
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

/**
 * Deletes the lead and its contacts (their channels, labels, assignments, sellers and cartera row go with them,
 * `on delete cascade`); undefined when the entity has no such lead. A conversation, quote, order or form key naming
 * the lead or one of its contacts makes the database refuse (foreign key).
 */
export async function deleteLead(db: Db, entityId: number, id: number): Promise<{ groupId: number; contacts: number } | undefined> {
  const gone = await db
    .delete(contact)
    .where(and(eq(contact.entityId, entityId), eq(contact.leadId, id)))
    .returning({ id: contact.id });
  const [row] = await db
    .delete(lead)
    .where(and(eq(lead.entityId, entityId), eq(lead.id, id)))
    .returning({ groupId: lead.groupId });
  return row ? { groupId: row.groupId, contacts: gone.length } : undefined;
}
