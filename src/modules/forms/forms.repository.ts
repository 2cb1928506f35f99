/** Drizzle queries of web form keys and the submissions already seen. */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { formKey, formSubmission } from './form-key.table.js';

export type FormKeyRow = typeof formKey.$inferSelect;

/** The form key row, or undefined when the key is not known. */
export async function findFormKey(db: Db, key: string): Promise<FormKeyRow | undefined> {
  const [row] = await db.select().from(formKey).where(eq(formKey.key, key));
  return row;
}

/** True when `submissionId` was already ingested for `entityId`. */
export async function isSubmissionSeen(db: Db, entityId: number, submissionId: string): Promise<boolean> {
  const rows = await db
    .select({ id: formSubmission.submissionId })
    .from(formSubmission)
    .where(and(eq(formSubmission.entityId, entityId), eq(formSubmission.submissionId, submissionId)));
  return rows.length > 0;
}

/** Records a submission; false when another request recorded it first. */
export async function insertSubmission(db: Db, values: { entityId: number; formKeyId: number; submissionId: string; contactId: number }): Promise<boolean> {
  const inserted = await db.insert(formSubmission).values(values).onConflictDoNothing().returning({ id: formSubmission.submissionId });
  return inserted.length > 0;
}

/** Creates the form key unless it exists (demo data, provisioning). */
export async function ensureFormKey(db: Db, values: { entityId: number; key: string; name: string }): Promise<void> {
  await db.insert(formKey).values(values).onConflictDoNothing();
}
