import { and, desc, eq, getTableColumns, ilike, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { countCapFor, likePattern, type PageRequest } from '../../platform/http/pagination.js';
import { lead } from './lead.table.js';
import { contact } from './contact.table.js';
import { hasEffectiveSeller } from './seller-derivation.sql.js';

export type LeadRow = typeof lead.$inferSelect;
export type LeadValues = Partial<Pick<LeadRow, 'groupId' | 'name' | 'erpId' | 'email' | 'phone' | 'taxId'>>;

export interface LeadFilter extends PageRequest {
  groupId?: number | undefined;
  kind?: 'lead' | 'client' | undefined;
  search?: string | undefined;
  employeeId?: number | undefined;
}

function listWhere(entityId: number, f: LeadFilter): SQL | undefined {
  const pattern = f.search ? likePattern(f.search) : undefined;
  return and(
    eq(lead.entityId, entityId),
    f.groupId !== undefined ? eq(lead.groupId, f.groupId) : undefined,
    f.kind === 'client' ? isNotNull(lead.erpId) : f.kind === 'lead' ? isNull(lead.erpId) : undefined,
    pattern ? or(ilike(lead.name, pattern), ilike(lead.email, pattern), ilike(lead.erpId, pattern)) : undefined,
    f.employeeId !== undefined ? hasEffectiveSeller(sql`${lead.id}`, sql`${lead.groupId}`, f.employeeId) : undefined,
  );
}

/**
 * Newest first, with the matching count capped at `countCapFor(f)` (see pagination.ts), in one statement:
 * the count is a scalar subquery on each row; an empty page counts separately.
 */
export async function listLeads(db: Db, entityId: number, f: LeadFilter): Promise<{ rows: LeadRow[]; total: number; capped: boolean }> {
  const where = listWhere(entityId, f);
  const cap = countCapFor(f);
  const counted = () => sql<number>`(select count(*)::int from (${db.select({ one: sql`1` }).from(lead).where(where).limit(cap)}) capped)`;
  const rows = await db
    .select({ ...getTableColumns(lead), total: counted() })
    .from(lead)
    .where(where)
    .orderBy(desc(lead.createdAt), desc(lead.id))
    .limit(f.limit)
    .offset(f.offset);
  const total = rows[0]?.total ?? (f.offset > 0 ? ((await db.select({ n: counted() }).from(sql`(select 1) one`))[0]?.n ?? 0) : 0);
  return { rows: rows.map(({ total: _total, ...row }) => row), total, capped: total >= cap };
}

export async function findLead(db: Db, entityId: number, id: number): Promise<LeadRow | undefined> {
  const rows = await db.select().from(lead).where(and(eq(lead.entityId, entityId), eq(lead.id, id)));
  return rows[0];
}

export async function findLeadByErpId(db: Db, entityId: number, erpId: string): Promise<LeadRow | undefined> {
  const rows = await db.select().from(lead).where(and(eq(lead.entityId, entityId), eq(lead.erpId, erpId)));
  return rows[0];
}

export async function insertLead(db: Db, entityId: number, values: LeadValues & { groupId: number; name: string }): Promise<LeadRow> {
  const rows = await db.insert(lead).values({ ...values, entityId }).returning();
  return rows[0]!;
}

/** Updates a lead; moving it to another group moves its contacts' denormalized `group_id` too. */
export async function updateLead(db: Db, entityId: number, id: number, values: LeadValues): Promise<LeadRow | undefined> {
  const rows = await db
    .update(lead)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(lead.entityId, entityId), eq(lead.id, id)))
    .returning();
  if (rows[0] && values.groupId !== undefined) {
    await db.update(contact).set({ groupId: values.groupId }).where(and(eq(contact.entityId, entityId), eq(contact.leadId, id)));
  }
  return rows[0];
}
