/** Custom field groups and definitions (SPEC "Custom fields"). */
import { toPage } from '../../platform/http/pagination.js';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { notFound, validationFailed, type FieldError } from '../../platform/errors.js';
import type { Page } from '../../platform/http/pagination.js';
import { isPermissionCode } from '../../platform/permissions/catalog.js';
import { CUSTOM_FIELD_TYPES } from './custom-field-kinds.js';
import {
  findField,
  findFieldGroup,
  insertField,
  insertFieldGroup,
  listFieldGroups,
  listFields,
  updateField,
  updateFieldGroup,
  type CustomFieldGroupRow,
  type CustomFieldRow,
} from './custom-field.repository.js';
import type {
  CreateCustomFieldBody,
  CreateCustomFieldGroupBody,
  CustomFieldGroupListQuery,
  CustomFieldGroupResponse,
  CustomFieldListQuery,
  CustomFieldResponse,
  SettingsInput,
  UpdateCustomFieldBody,
  UpdateCustomFieldGroupBody,
} from './custom-field.schemas.js';

function toFieldGroupResponse(r: CustomFieldGroupRow): CustomFieldGroupResponse {
  return {
    id: r.id,
    name: r.name,
    record_type: r.recordType,
    position: r.position,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

function toFieldResponse(r: CustomFieldRow): CustomFieldResponse {
  return {
    id: r.id,
    custom_field_group_id: r.customFieldGroupId,
    name: r.name,
    type: r.type,
    options: r.options,
    settings: { readonly: r.readonly, override_permission_code: r.overridePermissionCode, contexts: r.contexts },
    position: r.position,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

function settingsValues(s: SettingsInput | undefined, errors: FieldError[]) {
  if (!s) return {};
  const code = s.override_permission_code;
  if (code && !isPermissionCode(code)) errors.push({ field: '/body/settings/override_permission_code', message: `unknown permission code ${code}` });
  return {
    ...(s.readonly !== undefined ? { readonly: s.readonly } : {}),
    ...(code !== undefined ? { overridePermissionCode: code } : {}),
    ...(s.contexts !== undefined ? { contexts: s.contexts } : {}),
  };
}

export function createCustomFieldService(deps: { db: Db }) {
  const { db } = deps;
  return {
    listTypes: () => ({ data: CUSTOM_FIELD_TYPES.map((t) => ({ ...t })) }),

    async listGroups(caller: Principal, q: CustomFieldGroupListQuery): Promise<Page<CustomFieldGroupResponse>> {
      const { rows, total } = await listFieldGroups(db, caller.entityId, { ...q, recordType: q.record_type });
      return toPage(q, rows, total, toFieldGroupResponse);
    },
    async getGroup(caller: Principal, id: number): Promise<CustomFieldGroupResponse> {
      const row = await findFieldGroup(db, caller.entityId, id);
      if (!row) throw notFound('custom_field_group', id);
      return toFieldGroupResponse(row);
    },
    async createGroup(caller: Principal, body: CreateCustomFieldGroupBody): Promise<CustomFieldGroupResponse> {
      const row = await insertFieldGroup(db, caller.entityId, {
        name: body.name.trim(),
        recordType: body.record_type,
        ...(body.position !== undefined ? { position: body.position } : {}),
      });
      return toFieldGroupResponse(row);
    },
    async updateGroup(caller: Principal, id: number, body: UpdateCustomFieldGroupBody): Promise<CustomFieldGroupResponse> {
      const row = await updateFieldGroup(db, caller.entityId, id, {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.position !== undefined ? { position: body.position } : {}),
      });
      if (!row) throw notFound('custom_field_group', id);
      return toFieldGroupResponse(row);
    },

    async listFields(caller: Principal, q: CustomFieldListQuery): Promise<Page<CustomFieldResponse>> {
      const { rows, total } = await listFields(db, caller.entityId, { ...q, groupId: q.custom_field_group_id });
      return toPage(q, rows, total, toFieldResponse);
    },
    async getField(caller: Principal, id: number): Promise<CustomFieldResponse> {
      const row = await findField(db, caller.entityId, id);
      if (!row) throw notFound('custom_field', id);
      return toFieldResponse(row);
    },
    /** 400 for a foreign/unknown group, a select without options, or an unknown override permission code. */
    async createField(caller: Principal, body: CreateCustomFieldBody): Promise<CustomFieldResponse> {
      const errors: FieldError[] = [];
      if (!(await findFieldGroup(db, caller.entityId, body.custom_field_group_id))) {
        errors.push({ field: '/body/custom_field_group_id', message: `custom field group ${body.custom_field_group_id} not found` });
      }
      if (body.type === 'select' && (body.options ?? []).length === 0) errors.push({ field: '/body/options', message: 'a select field needs options' });
      const settings = settingsValues(body.settings, errors);
      if (errors.length > 0) throw validationFailed(errors);
      const row = await insertField(db, caller.entityId, {
        customFieldGroupId: body.custom_field_group_id,
        name: body.name.trim(),
        type: body.type,
        options: body.type === 'select' ? (body.options ?? []) : [],
        ...settings,
        ...(body.position !== undefined ? { position: body.position } : {}),
      });
      return toFieldResponse(row);
    },
    async updateField(caller: Principal, id: number, body: UpdateCustomFieldBody): Promise<CustomFieldResponse> {
      const existing = await findField(db, caller.entityId, id);
      if (!existing) throw notFound('custom_field', id);
      const errors: FieldError[] = [];
      if (existing.type === 'select' && body.options !== undefined && body.options.length === 0) {
        errors.push({ field: '/body/options', message: 'a select field needs options' });
      }
      const settings = settingsValues(body.settings, errors);
      if (errors.length > 0) throw validationFailed(errors);
      const row = await updateField(db, caller.entityId, id, {
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.options !== undefined && existing.type === 'select' ? { options: body.options } : {}),
        ...(body.position !== undefined ? { position: body.position } : {}),
        ...settings,
      });
      return toFieldResponse(row!);
    },
  };
}
export type CustomFieldService = ReturnType<typeof createCustomFieldService>;
