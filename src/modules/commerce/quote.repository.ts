/** All I/O of quotes and their lines. */
import { and, asc, count, desc, eq, gte, inArray, lt, or, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { commerceOrder, commerceQuote, commerceQuoteLine, type QuoteStatus } from './commerce.table.js';
import type { StoredLine } from './document-lines.js';

export type QuoteRow = typeof commerceQuote.$inferSelect;
export type QuoteWithLines = QuoteRow & { lines: StoredLine[]; orderId: number | null };

export async function insertQuote(db: Db, values: typeof commerceQuote.$inferInsert, lines: StoredLine[]): Promise<QuoteRow> {
  const [row] = await db.insert(commerceQuote).values(values).returning();
  await replaceLines(db, row!.entityId, row!.id, lines);
  return row!;
}

export async function replaceLines(db: Db, entityId: number, quoteId: number, lines: StoredLine[]): Promise<void> {
  await db.delete(commerceQuoteLine).where(eq(commerceQuoteLine.quoteId, quoteId));
  if (lines.length > 0) await db.insert(commerceQuoteLine).values(lines.map((l) => ({ ...l, entityId, quoteId })));
}

export async function findQuote(db: Db, entityId: number, id: number, lock = false): Promise<QuoteWithLines | undefined> {
  const q = db
    .select()
    .from(commerceQuote)
    .where(and(eq(commerceQuote.entityId, entityId), eq(commerceQuote.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) return undefined;
  return (await withLines(db, [row]))[0];
}

/**
 * The condition for quotes that read as `status` on `today` (YYYY-MM-DD, the entity's date): an open quote
 * (draft, sent) past its validity reads as expired before any move stores it (quote-state.ts).
 */
function readsAs(status: QuoteStatus, today: string): SQL | undefined {
  if (status === 'expired')
    return or(eq(commerceQuote.status, 'expired'), and(inArray(commerceQuote.status, ['draft', 'sent']), lt(commerceQuote.validUntil, today)));
  if (status === 'draft' || status === 'sent') return and(eq(commerceQuote.status, status), gte(commerceQuote.validUntil, today));
  return eq(commerceQuote.status, status);
}

/** A page of the entity's quotes; `status` filters by the status each quote reads as on `today`. */
export async function listQuotes(
  db: Db,
  entityId: number,
  q: { limit: number; offset: number; leadId?: number | undefined; status?: QuoteStatus | undefined; today: string },
): Promise<{ rows: QuoteWithLines[]; total: number }> {
  const where = and(
    eq(commerceQuote.entityId, entityId),
    q.leadId === undefined ? undefined : eq(commerceQuote.leadId, q.leadId),
    q.status === undefined ? undefined : readsAs(q.status, q.today),
  );
  const rows = await db.select().from(commerceQuote).where(where).orderBy(desc(commerceQuote.id)).limit(q.limit).offset(q.offset);
  const [total] = await db.select({ n: count() }).from(commerceQuote).where(where);
  return { rows: await withLines(db, rows), total: total?.n ?? 0 };
}

export async function updateQuote(db: Db, id: number, values: Partial<typeof commerceQuote.$inferInsert>): Promise<void> {
  await db
    .update(commerceQuote)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(commerceQuote.id, id));
}

async function withLines(db: Db, rows: QuoteRow[]): Promise<QuoteWithLines[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const lines = await db.select().from(commerceQuoteLine).where(inArray(commerceQuoteLine.quoteId, ids)).orderBy(asc(commerceQuoteLine.position));
  const orders = await db.select({ id: commerceOrder.id, quoteId: commerceOrder.quoteId }).from(commerceOrder).where(inArray(commerceOrder.quoteId, ids));
  return rows.map((r) => ({ ...r, lines: lines.filter((l) => l.quoteId === r.id), orderId: orders.find((o) => o.quoteId === r.id)?.id ?? null }));
}
