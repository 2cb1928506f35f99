/** The only reader and writer of `contact_label` and `lead_label` (issue 49). */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { contact } from './contact.table.js';
import { contactLabel, leadLabel } from './label-link.table.js';
import { lead } from './lead.table.js';

/** The kinds of record that carry labels. */
export type LabelledRecord = 'contact' | 'lead';

const tables = {
  contact: { links: contactLabel, subject: contactLabel.contactId, records: contact, recordId: contact.id, recordEntity: contact.entityId },
  lead: { links: leadLabel, subject: leadLabel.leadId, records: lead, recordId: lead.id, recordEntity: lead.entityId },
} as const;

/** Which of `ids` are records of `kind` of the entity. */
export async function existingRecords(db: Db, kind: LabelledRecord, entityId: number, ids: readonly number[]): Promise<Set<number>> {
  const t = tables[kind];
  const rows = await db
    .select({ id: t.recordId })
    .from(t.records)
    .where(and(eq(t.recordEntity, entityId), inArray(t.recordId, [...ids])));
  return new Set(rows.map((r) => r.id));
}

/** Puts each of `labelIds` on each of `ids` (records of the entity); a label already there stays as it was. */
export async function addRecordLabels(
  db: Db,
  kind: LabelledRecord,
  entityId: number,
  ids: readonly number[],
  labelIds: readonly number[],
  by: number | null,
): Promise<void> {
  if (ids.length === 0 || labelIds.length === 0) return;
  const values = ids.flatMap((id) => labelIds.map((labelId) => ({ id, labelId })));
  if (kind === 'contact')
    await db
      .insert(contactLabel)
      .values(values.map((v) => ({ contactId: v.id, labelId: v.labelId, entityId, createdByEmployeeId: by })))
      .onConflictDoNothing();
  else
    await db
      .insert(leadLabel)
      .values(values.map((v) => ({ leadId: v.id, labelId: v.labelId, entityId, createdByEmployeeId: by })))
      .onConflictDoNothing();
}

/** Takes each of `labelIds` off each of `ids`. */
export async function removeRecordLabels(db: Db, kind: LabelledRecord, entityId: number, ids: readonly number[], labelIds: readonly number[]): Promise<void> {
  if (ids.length === 0 || labelIds.length === 0) return;
  const t = tables[kind];
  await db.delete(t.links).where(and(eq(t.links.entityId, entityId), inArray(t.subject, [...ids]), inArray(t.links.labelId, [...labelIds])));
}

/** The label ids of each of `ids`, ascending (records without labels are absent). */
export async function labelIdsOf(db: Db, kind: LabelledRecord, ids: readonly number[]): Promise<Map<number, number[]>> {
  if (ids.length === 0) return new Map();
  const t = tables[kind];
  const rows = await db
    .select({ id: t.subject, labelIds: sql<number[]>`array_agg(${t.links.labelId} order by ${t.links.labelId})` })
    .from(t.links)
    .where(inArray(t.subject, [...ids]))
    .groupBy(t.subject);
  return new Map(rows.map((r) => [r.id, r.labelIds]));
}
