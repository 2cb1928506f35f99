import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { PageRequest } from '../../platform/http/pagination.js';
import { customField, customFieldGroup, customFieldValue } from './custom-field.table.js';

export type CustomFieldGroupRow = typeof customFieldGroup.$inferSelect;
export type CustomFieldRow = typeof customField.$inferSelect;
export type RecordType = CustomFieldGroupRow['recordType'];

export async function listFieldGroups(db: Db, entityId: number, f: PageRequest & { recordType?: RecordType | undefined }) {
  const where = and(eq(customFieldGroup.entityId, entityId), f.recordType ? eq(customFieldGroup.recordType, f.recordType) : undefined);
  const [rows, totals] = await Promise.all([
    db.select().from(customFieldGroup).where(where).orderBy(asc(customFieldGroup.position), asc(customFieldGroup.id)).limit(f.limit).offset(f.offset),
    db.select({ n: count() }).from(customFieldGroup).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findFieldGroup(db: Db, entityId: number, id: number) {
  const rows = await db
    .select()
    .from(customFieldGroup)
    .where(and(eq(customFieldGroup.entityId, entityId), eq(customFieldGroup.id, id)));
  return rows[0];
}

export async function insertFieldGroup(db: Db, entityId: number, values: { name: string; recordType: RecordType; position?: number }) {
  return (
    await db
      .insert(customFieldGroup)
      .values({ ...values, entityId })
      .returning()
  )[0]!;
}

export async function updateFieldGroup(db: Db, entityId: number, id: number, values: { name?: string; position?: number }) {
  const rows = await db
    .update(customFieldGroup)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(customFieldGroup.entityId, entityId), eq(customFieldGroup.id, id)))
    .returning();
  return rows[0];
}

export async function listFields(db: Db, entityId: number, f: PageRequest & { groupId?: number | undefined }) {
  const where = and(eq(customField.entityId, entityId), f.groupId !== undefined ? eq(customField.customFieldGroupId, f.groupId) : undefined);
  const [rows, totals] = await Promise.all([
    db.select().from(customField).where(where).orderBy(asc(customField.position), asc(customField.id)).limit(f.limit).offset(f.offset),
    db.select({ n: count() }).from(customField).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findField(db: Db, entityId: number, id: number) {
  const rows = await db
    .select()
    .from(customField)
    .where(and(eq(customField.entityId, entityId), eq(customField.id, id)));
  return rows[0];
}

type FieldValues = Omit<typeof customField.$inferInsert, 'id' | 'entityId' | 'createdAt' | 'updatedAt'>;

export async function insertField(db: Db, entityId: number, values: FieldValues) {
  return (
    await db
      .insert(customField)
      .values({ ...values, entityId })
      .returning()
  )[0]!;
}

export async function updateField(db: Db, entityId: number, id: number, values: Partial<FieldValues>) {
  const rows = await db
    .update(customField)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(customField.entityId, entityId), eq(customField.id, id)))
    .returning();
  return rows[0];
}

/** The entity's fields among `ids` with their group's record type. */
export async function fieldsWithRecordType(db: Db, entityId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .select({ field: customField, recordType: customFieldGroup.recordType })
    .from(customField)
    .innerJoin(customFieldGroup, eq(customFieldGroup.id, customField.customFieldGroupId))
    .where(and(eq(customField.entityId, entityId), inArray(customField.id, ids)));
}

/** Values of one record with their field's type, by field position. */
export async function valuesOf(db: Db, entityId: number, recordType: RecordType, recordId: number) {
  return db
    .select({ value: customFieldValue, type: customField.type })
    .from(customFieldValue)
    .innerJoin(customField, eq(customField.id, customFieldValue.customFieldId))
    .where(and(eq(customFieldValue.entityId, entityId), eq(customFieldValue.recordType, recordType), eq(customFieldValue.recordId, recordId)))
    .orderBy(asc(customField.position), asc(customField.id));
}

/** Values of the entity's fields `fieldIds` on one record, with their field's type; a field without a value is absent. */
export async function valuesOfFields(db: Db, entityId: number, recordType: RecordType, recordId: number, fieldIds: number[]) {
  if (fieldIds.length === 0) return [];
  return db
    .select({ customFieldId: customFieldValue.customFieldId, type: customField.type, value: customFieldValue.value })
    .from(customFieldValue)
    .innerJoin(customField, eq(customField.id, customFieldValue.customFieldId))
    .where(
      and(
        eq(customFieldValue.entityId, entityId),
        eq(customFieldValue.recordType, recordType),
        eq(customFieldValue.recordId, recordId),
        inArray(customFieldValue.customFieldId, fieldIds),
        eq(customField.entityId, entityId),
      ),
    );
}

export async function upsertValue(
  db: Db,
  entityId: number,
  v: { customFieldId: number; recordType: RecordType; recordId: number; value: unknown; updatedByEmployeeId: number },
): Promise<void> {
  await db
    .insert(customFieldValue)
    .values({ ...v, entityId })
    .onConflictDoUpdate({
      target: [customFieldValue.customFieldId, customFieldValue.recordId],
      set: { value: v.value, updatedByEmployeeId: v.updatedByEmployeeId, updatedAt: sql`now()` },
    });
}

export async function deleteValue(db: Db, entityId: number, customFieldId: number, recordId: number): Promise<void> {
  await db
    .delete(customFieldValue)
    .where(and(eq(customFieldValue.entityId, entityId), eq(customFieldValue.customFieldId, customFieldId), eq(customFieldValue.recordId, recordId)));
}
