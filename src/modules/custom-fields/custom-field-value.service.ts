/**
 * Custom field values of groups and contacts (SPEC "Custom fields", "Errors" 1). A PUT is
 * all-or-nothing: every entry is checked first (field of the entity and of the record's type, value
 * valid for the kind, readonly rule) and only then written in one transaction. Writing a readonly field
 * answers 403 `readonly_field` unless the caller holds the field's `override_permission_code`.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { forbidden, notFound, validationFailed, type FieldError } from '../../platform/errors.js';
import { checkValue } from './custom-field-kinds.js';
import { deleteValue, fieldsWithRecordType, upsertValue, valuesOf, type RecordType } from './custom-field.repository.js';
import type { CustomFieldValuesResponse, PutCustomFieldValuesBody } from './custom-field.schemas.js';

/** Whether record `id` of `recordType` exists in the entity (wired to the records module). */
export type RecordExists = (recordType: RecordType, entityId: number, id: number) => Promise<boolean>;

export function createCustomFieldValueService(deps: { db: Db; recordExists: RecordExists }) {
  const { db, recordExists } = deps;

  async function read(entityId: number, recordType: RecordType, recordId: number): Promise<CustomFieldValuesResponse> {
    const rows = await valuesOf(db, entityId, recordType, recordId);
    return {
      data: rows.map((r) => ({ custom_field_id: r.value.customFieldId, type: r.type, value: r.value.value, updated_at: r.value.updatedAt.toISOString() })),
    };
  }

  async function assertRecord(recordType: RecordType, entityId: number, id: number): Promise<void> {
    if (!(await recordExists(recordType, entityId, id))) throw notFound(recordType, id);
  }

  return {
    /** 404 when the record is not the caller's. */
    async get(caller: Principal, recordType: RecordType, recordId: number): Promise<CustomFieldValuesResponse> {
      await assertRecord(recordType, caller.entityId, recordId);
      return read(caller.entityId, recordType, recordId);
    },

    /** Sets the listed values (`null` clears one); fields not listed keep their values. Returns every value of the record. */
    async put(caller: Principal, recordType: RecordType, recordId: number, body: PutCustomFieldValuesBody): Promise<CustomFieldValuesResponse> {
      await assertRecord(recordType, caller.entityId, recordId);
      const fields = new Map((await fieldsWithRecordType(db, caller.entityId, body.values.map((v) => v.custom_field_id))).map((f) => [f.field.id, f]));
      const errors: FieldError[] = [];
      const writes: { customFieldId: number; value: unknown }[] = [];
      const denied: { id: number; code: string | null }[] = [];
      body.values.forEach((entry, i) => {
        const path = `/body/values/${i}/value`;
        const found = fields.get(entry.custom_field_id);
        if (!found || found.recordType !== recordType) {
          errors.push({ field: `/body/values/${i}/custom_field_id`, message: `custom field ${entry.custom_field_id} not found for ${recordType}` });
          return;
        }
        const { field } = found;
        if (field.readonly && !(field.overridePermissionCode && caller.permissions.has(field.overridePermissionCode))) {
          denied.push({ id: field.id, code: field.overridePermissionCode });
        }
        if (entry.value === null) {
          writes.push({ customFieldId: field.id, value: null });
          return;
        }
        const checked = checkValue(field.type, entry.value, { options: field.options, entityId: caller.entityId });
        if (!checked.ok) errors.push({ field: path, message: checked.message });
        else writes.push({ customFieldId: field.id, value: checked.value });
      });
      if (errors.length > 0) throw validationFailed(errors);
      if (denied.length > 0) {
        const first = denied[0]!;
        throw forbidden(
          'readonly_field',
          `Custom field ${first.id} is read-only${first.code ? `; requires ${first.code}` : ''}`,
          { custom_field_ids: denied.map((d) => d.id), ...(first.code ? { permission: first.code } : {}) },
        );
      }
      await db.transaction(async (tx) => {
        for (const w of writes) {
          if (w.value === null) await deleteValue(tx, caller.entityId, w.customFieldId, recordId);
          else await upsertValue(tx, caller.entityId, { ...w, recordType, recordId, updatedByEmployeeId: caller.employeeId });
        }
      });
      return read(caller.entityId, recordType, recordId);
    },
  };
}
export type CustomFieldValueService = ReturnType<typeof createCustomFieldValueService>;
