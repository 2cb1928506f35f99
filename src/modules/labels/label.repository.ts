/** The only reader and writer of `label` (issue 49). */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { label } from './label.table.js';

export type LabelRow = typeof label.$inferSelect;

/** The entity's labels by name (case-insensitive order). */
export async function listLabels(db: Db, entityId: number): Promise<LabelRow[]> {
  return db
    .select()
    .from(label)
    .where(eq(label.entityId, entityId))
    .orderBy(sql`lower(${label.name})`, asc(label.id));
}

/** The labels among `ids` that belong to the entity. */
export async function findLabels(db: Db, entityId: number, ids: readonly number[]): Promise<LabelRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(label)
    .where(and(eq(label.entityId, entityId), inArray(label.id, [...ids])));
}

export async function insertLabel(db: Db, values: { entityId: number; name: string; color: string; description: string | null }): Promise<LabelRow> {
  const [row] = await db.insert(label).values(values).returning();
  return row!;
}

export async function updateLabel(
  db: Db,
  entityId: number,
  id: number,
  values: { name?: string; color?: string; description?: string | null },
): Promise<LabelRow | undefined> {
  const [row] = await db
    .update(label)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(label.entityId, entityId), eq(label.id, id)))
    .returning();
  return row;
}

/** Deletes the label; its links on conversations, contacts and leads go with it (foreign keys `on delete cascade`). */
export async function deleteLabel(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(label)
    .where(and(eq(label.entityId, entityId), eq(label.id, id)))
    .returning({ id: label.id });
  return rows.length > 0;
}
