/** Drizzle queries of message templates. */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { interactionTemplate as template } from '../model/index.js';
import type { TemplateStatus } from '../model/index.js';

export type TemplateRow = typeof template.$inferSelect;

export async function listTemplates(db: Db, entityId: number, status?: TemplateStatus): Promise<TemplateRow[]> {
  return db
    .select()
    .from(template)
    .where(and(eq(template.entityId, entityId), status !== undefined ? eq(template.status, status) : undefined))
    .orderBy(asc(template.name), asc(template.language));
}

export async function findTemplate(db: Db, entityId: number, id: number): Promise<TemplateRow | undefined> {
  const [row] = await db
    .select()
    .from(template)
    .where(and(eq(template.entityId, entityId), eq(template.id, id)));
  return row;
}

export async function findTemplateByName(db: Db, entityId: number, name: string, language: string): Promise<TemplateRow | undefined> {
  const [row] = await db
    .select()
    .from(template)
    .where(and(eq(template.entityId, entityId), eq(template.name, name), eq(template.language, language)));
  return row;
}

/** Inserts a template; undefined when the entity already has one with that name and language. */
export async function insertTemplate(db: Db, values: typeof template.$inferInsert): Promise<TemplateRow | undefined> {
  const [row] = await db.insert(template).values(values).onConflictDoNothing().returning();
  return row;
}

export async function updateTemplate(db: Db, entityId: number, id: number, values: Partial<typeof template.$inferInsert>): Promise<TemplateRow | undefined> {
  const [row] = await db
    .update(template)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(template.entityId, entityId), eq(template.id, id)))
    .returning();
  return row;
}

export async function deleteTemplate(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(template)
    .where(and(eq(template.entityId, entityId), eq(template.id, id)))
    .returning({ id: template.id });
  return rows.length > 0;
}

/**
 * Applies a review outcome to every template submitted under `providerTemplateId` (the platform's id is
 * global, so it names one entity's template, or the same template of entities sharing an account).
 * Returns the templates changed.
 */
export async function applyReview(
  db: Db,
  providerTemplateId: string,
  values: { status: TemplateStatus; rejectionReason: string | null },
): Promise<TemplateRow[]> {
  return db
    .update(template)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(template.providerTemplateId, providerTemplateId))
    .returning();
}
