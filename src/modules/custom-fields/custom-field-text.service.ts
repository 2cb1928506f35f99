/**
 * Custom fields as text, for other modules that write to customers (canned replies' `{{contact.custom.<id>}}`,
 * issue 49): which of an entity's fields exist and to which record type they apply, and a record's values as
 * readable text (`textOf` in custom-field-kinds.ts). Reads only; no permission check (the caller has its own).
 */
import type { Db } from '../../db/client.js';
import { isMediaValueKind, textOf, type CustomFieldTypeCode } from './custom-field-kinds.js';
import { fieldsWithRecordType, valuesOfFields, type RecordType } from './custom-field.repository.js';

/** What a field is, for a caller that names it: `text` is false for the media-valued kinds, whose values have no text. */
interface CustomFieldSummary {
  recordType: RecordType;
  name: string;
  type: CustomFieldTypeCode;
  text: boolean;
}

export interface CustomFieldTexts {
  /** The entity's fields among `ids`, by id; an unknown id or another entity's field is absent. */
  fieldsOf(entityId: number, ids: number[]): Promise<Map<number, CustomFieldSummary>>;
  /**
   * The text of each of `fieldIds` on record `recordId` of `recordType` (a contact or group id), by field id.
   * Absent: no value, a value without text (a media-valued field), a field deleted or of another entity or type.
   */
  textsOf(entityId: number, recordType: RecordType, recordId: number, fieldIds: number[]): Promise<Map<number, string>>;
}

export function createCustomFieldTexts(deps: { db: Db }): CustomFieldTexts {
  const { db } = deps;
  return {
    async fieldsOf(entityId, ids) {
      const rows = await fieldsWithRecordType(db, entityId, [...new Set(ids)]);
      return new Map(rows.map(({ field, recordType }) => [field.id, { recordType, name: field.name, type: field.type, text: !isMediaValueKind(field.type) }]));
    },
    async textsOf(entityId, recordType, recordId, fieldIds) {
      const rows = await valuesOfFields(db, entityId, recordType, recordId, [...new Set(fieldIds)]);
      const out = new Map<number, string>();
      for (const r of rows) {
        const text = textOf(r.type, r.value);
        if (text !== null && text !== '') out.set(r.customFieldId, text);
      }
      return out;
    },
  };
}
