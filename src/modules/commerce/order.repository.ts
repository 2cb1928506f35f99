/** All I/O of orders and their lines. */
import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { commerceOrder, commerceOrderLine } from './commerce.table.js';
import type { StoredLine } from './document-lines.js';

export type OrderRow = typeof commerceOrder.$inferSelect;
export type OrderWithLines = OrderRow & { lines: StoredLine[] };

/** Inserts an order; undefined when its quote already has one (at most one order per quote). */
export async function insertOrder(db: Db, values: typeof commerceOrder.$inferInsert, lines: StoredLine[]): Promise<OrderRow | undefined> {
  const [row] = await db.insert(commerceOrder).values(values).onConflictDoNothing().returning();
  if (!row) return undefined;
  await db.insert(commerceOrderLine).values(lines.map((l) => ({ ...l, entityId: row.entityId, orderId: row.id })));
  return row;
}

export async function findOrder(db: Db, entityId: number, id: number): Promise<OrderWithLines | undefined> {
  const [row] = await db
    .select()
    .from(commerceOrder)
    .where(and(eq(commerceOrder.entityId, entityId), eq(commerceOrder.id, id)));
  return row ? (await withLines(db, [row]))[0] : undefined;
}

export async function getOrder(db: Db, id: number): Promise<OrderWithLines | undefined> {
  const [row] = await db.select().from(commerceOrder).where(eq(commerceOrder.id, id));
  return row ? (await withLines(db, [row]))[0] : undefined;
}

export async function listOrders(
  db: Db,
  entityId: number,
  q: { limit: number; offset: number; leadId?: number | undefined },
): Promise<{ rows: OrderWithLines[]; total: number }> {
  const where = and(eq(commerceOrder.entityId, entityId), q.leadId === undefined ? undefined : eq(commerceOrder.leadId, q.leadId));
  const rows = await db.select().from(commerceOrder).where(where).orderBy(desc(commerceOrder.id)).limit(q.limit).offset(q.offset);
  const [total] = await db.select({ n: count() }).from(commerceOrder).where(where);
  return { rows: await withLines(db, rows), total: total?.n ?? 0 };
}

export async function recordPush(
  db: Db,
  id: number,
  values: Pick<OrderRow, 'erpPushStatus'> & Partial<Pick<OrderRow, 'erpOrderNumber' | 'erpStatus' | 'erpError' | 'erpPushedAt'>>,
): Promise<void> {
  await db
    .update(commerceOrder)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(commerceOrder.id, id));
}

async function withLines(db: Db, rows: OrderRow[]): Promise<OrderWithLines[]> {
  const lines = await db
    .select()
    .from(commerceOrderLine)
    .where(
      inArray(
        commerceOrderLine.orderId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(commerceOrderLine.position));
  return rows.map((r) => ({ ...r, lines: lines.filter((l) => l.orderId === r.id) }));
}
