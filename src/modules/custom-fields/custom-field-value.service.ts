/**
 * Custom field values of groups and contacts (SPEC "Custom fields", "Errors" 1). A PUT is
 * all-or-nothing: every entry is checked first (field of the entity and of the record's type, value
 * valid for the kind, readonly rule) and only then written in one transaction. Writing a readonly field
 * answers 403 `readonly_field` unless the caller holds the field's `override_permission_code`.
 * A media-valued field (image, video, pdf) must name a ready media object of the caller's entity and of
 * the field's kind; reading such a value adds a short-lived download URL.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { forbidden, notFound, validationFailed, type FieldError } from '../../platform/errors.js';
import { MEDIA_VALUE_KINDS, checkValue, isMediaValueKind } from './custom-field-kinds.js';
import { deleteValue, fieldsWithRecordType, upsertValue, valuesOf, type RecordType } from './custom-field.repository.js';
import type { CustomFieldValuesResponse, PutCustomFieldValuesBody } from './custom-field.schemas.js';
import { transaction } from '../../platform/transactions/transaction.js';

/** Whether record `id` of `recordType` exists in the entity (wired to the records module). */
export type RecordExists = (recordType: RecordType, entityId: number, id: number) => Promise<boolean>;

/** What values need of the media module (wired to its service). */
export interface MediaReferences {
  summaries(entityId: number, ids: number[]): Promise<Map<number, { kind: string; contentType: string; status: string }>>;
  downloadUrls(entityId: number, ids: number[], origin?: string): Promise<Map<number, { url: string; expires_at: string }>>;
}

const mediaIdOf = (value: unknown): number | undefined => {
  const id = (value as { media_id?: unknown } | null)?.media_id;
  return typeof id === 'number' ? id : undefined;
};

export function createCustomFieldValueService(deps: { db: Db; recordExists: RecordExists; media: MediaReferences }) {
  const { db, recordExists, media } = deps;

  async function read(entityId: number, recordType: RecordType, recordId: number, origin?: string): Promise<CustomFieldValuesResponse> {
    const rows = await valuesOf(db, entityId, recordType, recordId);
    const mediaIds = rows
      .filter((r) => isMediaValueKind(r.type))
      .map((r) => mediaIdOf(r.value.value))
      .filter((id) => id !== undefined);
    const urls = mediaIds.length > 0 ? await media.downloadUrls(entityId, mediaIds, origin) : new Map<number, { url: string; expires_at: string }>();
    return {
      data: rows.map((r) => {
        const id = isMediaValueKind(r.type) ? mediaIdOf(r.value.value) : undefined;
        const value = id === undefined ? r.value.value : { media_id: id, url: urls.get(id)?.url ?? null, expires_at: urls.get(id)?.expires_at ?? null };
        return { custom_field_id: r.value.customFieldId, type: r.type, value, updated_at: r.value.updatedAt.toISOString() };
      }),
    };
  }

  /** Errors of media-valued entries: the media must be the entity's, ready, and of the field's kind. */
  async function checkMedia(entityId: number, entries: { path: string; type: string; mediaId: number }[]): Promise<FieldError[]> {
    if (entries.length === 0) return [];
    const found = await media.summaries(
      entityId,
      entries.map((e) => e.mediaId),
    );
    const errors: FieldError[] = [];
    for (const e of entries) {
      const m = found.get(e.mediaId);
      const want = MEDIA_VALUE_KINDS[e.type as keyof typeof MEDIA_VALUE_KINDS];
      if (!m) errors.push({ field: e.path, message: `media ${e.mediaId} not found` });
      else if (m.kind !== want.mediaKind || (want.contentType !== undefined && m.contentType !== want.contentType))
        errors.push({ field: e.path, message: `media ${e.mediaId} is not ${e.type === 'pdf' ? 'a PDF document' : `a ${e.type}`}` });
      else if (m.status !== 'ready') errors.push({ field: e.path, message: `media ${e.mediaId} is ${m.status}, not ready` });
    }
    return errors;
  }

  async function assertRecord(recordType: RecordType, entityId: number, id: number): Promise<void> {
    if (!(await recordExists(recordType, entityId, id))) throw notFound(recordType, id);
  }

  return {
    /** 404 when the record is not the caller's. */
    async get(caller: Principal, recordType: RecordType, recordId: number, origin?: string): Promise<CustomFieldValuesResponse> {
      await assertRecord(recordType, caller.entityId, recordId);
      return read(caller.entityId, recordType, recordId, origin);
    },

    /** Sets the listed values (`null` clears one); fields not listed keep their values. Returns every value of the record. */
    async put(
      caller: Principal,
      recordType: RecordType,
      recordId: number,
      body: PutCustomFieldValuesBody,
      origin?: string,
    ): Promise<CustomFieldValuesResponse> {
      await assertRecord(recordType, caller.entityId, recordId);
      const fields = new Map(
        (
          await fieldsWithRecordType(
            db,
            caller.entityId,
            body.values.map((v) => v.custom_field_id),
          )
        ).map((f) => [f.field.id, f]),
      );
      const errors: FieldError[] = [];
      const writes: { customFieldId: number; value: unknown }[] = [];
      const denied: { id: number; code: string | null }[] = [];
      const mediaEntries: { path: string; type: string; mediaId: number }[] = [];
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
        const mediaId = checked.ok && isMediaValueKind(field.type) ? mediaIdOf(checked.value) : undefined;
        if (mediaId !== undefined) mediaEntries.push({ path, type: field.type, mediaId });
      });
      errors.push(...(await checkMedia(caller.entityId, mediaEntries)));
      errors.sort((a, b) => a.field.localeCompare(b.field, 'en', { numeric: true }));
      if (errors.length > 0) throw validationFailed(errors);
      if (denied.length > 0) {
        const first = denied[0]!;
        throw forbidden('readonly_field', `Custom field ${first.id} is read-only${first.code ? `; requires ${first.code}` : ''}`, {
          custom_field_ids: denied.map((d) => d.id),
          ...(first.code ? { permission: first.code } : {}),
        });
      }
      await transaction(db, async ({ tx }) => {
        for (const w of writes) {
          if (w.value === null) await deleteValue(tx, caller.entityId, w.customFieldId, recordId);
          else await upsertValue(tx, caller.entityId, { ...w, recordType, recordId, updatedByEmployeeId: caller.employeeId });
        }
      });
      return read(caller.entityId, recordType, recordId, origin);
    },
  };
}
export type CustomFieldValueService = ReturnType<typeof createCustomFieldValueService>;
