/** Every statement on the imports module's tables: jobs, their failed rows, saved mappings. */
import { and, asc, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { importError, importJob, importTemplate } from './import.table.js';

export type ImportJobRow = typeof importJob.$inferSelect;
type ImportStatus = ImportJobRow['status'];
export type TemplateRow = typeof importTemplate.$inferSelect;

export async function insertJob(db: Db, values: typeof importJob.$inferInsert): Promise<ImportJobRow> {
  const [row] = await db.insert(importJob).values(values).returning();
  return row!;
}

export async function findJob(db: Db, entityId: number, id: number): Promise<ImportJobRow | undefined> {
  const rows = await db
    .select()
    .from(importJob)
    .where(and(eq(importJob.entityId, entityId), eq(importJob.id, id)));
  return rows[0];
}

/** The job by id alone, for its worker (the payload names the job, the row names the entity). */
export async function findJobForWorker(db: Db, id: number): Promise<ImportJobRow | undefined> {
  const rows = await db.select().from(importJob).where(eq(importJob.id, id));
  return rows[0];
}

export async function listJobs(db: Db, entityId: number, limit: number): Promise<ImportJobRow[]> {
  return db.select().from(importJob).where(eq(importJob.entityId, entityId)).orderBy(desc(importJob.createdAt), desc(importJob.id)).limit(limit);
}

/** Moves a job to `values.status` (or only touches it) when its status is among `from`; the row, or undefined. */
export async function transitionJob(
  db: Db,
  id: number,
  from: ImportStatus[],
  values: Partial<typeof importJob.$inferInsert>,
): Promise<ImportJobRow | undefined> {
  const rows = await db
    .update(importJob)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(importJob.id, id), inArray(importJob.status, from)))
    .returning();
  return rows[0];
}

export interface BatchTally {
  rows: number;
  created: number;
  updated: number;
  skipped: number;
  errors: number;
}

/**
 * Moves the checkpoint from `rowsDone` by a batch's rows and adds its counts, only while the job still runs and
 * its checkpoint is `rowsDone`: false when another worker moved it (or the import was cancelled), and the caller
 * rolls its batch back. The row lock it takes serializes two workers of one job.
 */
export async function advanceCheckpoint(db: Db, id: number, rowsDone: number, t: BatchTally): Promise<boolean> {
  const rows = await db
    .update(importJob)
    .set({
      rowsDone: sql`${importJob.rowsDone} + ${t.rows}`,
      created: sql`${importJob.created} + ${t.created}`,
      updated: sql`${importJob.updated} + ${t.updated}`,
      skipped: sql`${importJob.skipped} + ${t.skipped}`,
      errors: sql`${importJob.errors} + ${t.errors}`,
      heartbeatAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(importJob.id, id), eq(importJob.rowsDone, rowsDone), eq(importJob.status, 'running')))
    .returning({ id: importJob.id });
  return rows.length > 0;
}

export async function insertErrors(db: Db, importId: number, errors: { row: number; column: string | null; reason: string }[]): Promise<void> {
  if (errors.length === 0) return;
  await db.insert(importError).values(errors.map((e) => ({ importId, row: e.row, column: e.column, reason: e.reason })));
}

/** Failed rows by row number after `afterRow`, `limit` at most. */
export async function errorsAfter(db: Db, importId: number, afterRow: number, limit: number) {
  return db
    .select({ row: importError.row, column: importError.column, reason: importError.reason })
    .from(importError)
    .where(and(eq(importError.importId, importId), gt(importError.row, afterRow)))
    .orderBy(asc(importError.row))
    .limit(limit);
}

/** Real runs left `running` with no batch committed since `before` (their worker died): to resume. */
export async function staleRunningJobs(db: Db, before: Date): Promise<number[]> {
  const rows = await db
    .select({ id: importJob.id })
    .from(importJob)
    .where(and(eq(importJob.status, 'running'), or(isNull(importJob.heartbeatAt), lt(importJob.heartbeatAt, before))));
  return rows.map((r) => r.id);
}

export async function insertTemplate(db: Db, values: typeof importTemplate.$inferInsert): Promise<TemplateRow> {
  const [row] = await db.insert(importTemplate).values(values).returning();
  return row!;
}

export async function findTemplate(db: Db, entityId: number, id: number): Promise<TemplateRow | undefined> {
  const rows = await db
    .select()
    .from(importTemplate)
    .where(and(eq(importTemplate.entityId, entityId), eq(importTemplate.id, id)));
  return rows[0];
}

export async function listTemplates(db: Db, entityId: number): Promise<TemplateRow[]> {
  return db.select().from(importTemplate).where(eq(importTemplate.entityId, entityId)).orderBy(asc(importTemplate.name), asc(importTemplate.id));
}

export async function deleteTemplate(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(importTemplate)
    .where(and(eq(importTemplate.entityId, entityId), eq(importTemplate.id, id)))
    .returning({ id: importTemplate.id });
  return rows.length > 0;
}

/** Forgets a job's failed rows (a dry run that starts over). */
export async function deleteErrorsOf(db: Db, importId: number): Promise<void> {
  await db.delete(importError).where(eq(importError.importId, importId));
}
