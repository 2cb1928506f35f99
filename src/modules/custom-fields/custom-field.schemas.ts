import { Type, type Static } from 'typebox';
import { Id } from '../../platform/http/ids.js';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';

const RecordType = Type.Union([Type.Literal('contact'), Type.Literal('group')]);
const FieldType = Type.Union([
  Type.Literal('text'),
  Type.Literal('number'),
  Type.Literal('date'),
  Type.Literal('boolean'),
  Type.Literal('select'),
  Type.Literal('currency'),
  Type.Literal('department'),
  Type.Literal('municipality'),
  Type.Literal('image'),
  Type.Literal('video'),
  Type.Literal('pdf'),
]);

export const CustomFieldTypeListResponse = Type.Object({
  data: Type.Array(Type.Object({ code: FieldType, label: Type.String(), value_shape: Type.String() })),
});

export const CustomFieldGroupResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  record_type: RecordType,
  position: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type CustomFieldGroupResponse = Static<typeof CustomFieldGroupResponse>;
export const CustomFieldGroupListQuery = Type.Object({ ...pageQuery(10), record_type: Type.Optional(RecordType) });
export type CustomFieldGroupListQuery = Static<typeof CustomFieldGroupListQuery>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
export const CreateCustomFieldGroupBody = Type.Object(
  { name: Name, record_type: RecordType, position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })) },
  { additionalProperties: false },
);
export type CreateCustomFieldGroupBody = Static<typeof CreateCustomFieldGroupBody>;
export const UpdateCustomFieldGroupBody = Type.Object(
  { name: Type.Optional(Name), position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCustomFieldGroupBody = Static<typeof UpdateCustomFieldGroupBody>;

const Settings = Type.Object({
  readonly: Type.Boolean({ description: 'Writing a value answers 403 readonly_field unless the caller holds override_permission_code' }),
  override_permission_code: Type.Union([Type.String(), Type.Null()]),
  contexts: Type.Array(Type.String(), { description: 'Reserved; stored and returned, never used to filter' }),
});
const SettingsInput = Type.Object(
  {
    readonly: Type.Optional(Type.Boolean()),
    override_permission_code: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    contexts: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);
export type SettingsInput = Static<typeof SettingsInput>;

export const CustomFieldResponse = Type.Object({
  id: Type.Integer(),
  custom_field_group_id: Type.Integer(),
  name: Type.String(),
  type: FieldType,
  options: Type.Array(Type.String()),
  settings: Settings,
  position: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type CustomFieldResponse = Static<typeof CustomFieldResponse>;
export const CustomFieldListQuery = Type.Object({ ...pageQuery(10), custom_field_group_id: Type.Optional(Id) });
export type CustomFieldListQuery = Static<typeof CustomFieldListQuery>;

const Options = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, uniqueItems: true, description: 'Choices of a select field' });
export const CreateCustomFieldBody = Type.Object(
  {
    custom_field_group_id: Id,
    name: Name,
    type: FieldType,
    options: Type.Optional(Options),
    settings: Type.Optional(SettingsInput),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
  },
  { additionalProperties: false },
);
export type CreateCustomFieldBody = Static<typeof CreateCustomFieldBody>;
export const UpdateCustomFieldBody = Type.Object(
  {
    name: Type.Optional(Name),
    options: Type.Optional(Options),
    settings: Type.Optional(SettingsInput),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
  },
  { additionalProperties: false, minProperties: 1, description: 'type and group are fixed once created (stored values depend on them)' },
);
export type UpdateCustomFieldBody = Static<typeof UpdateCustomFieldBody>;

export const CustomFieldGroupListResponse = pageOf(CustomFieldGroupResponse);
export const CustomFieldListResponse = pageOf(CustomFieldResponse);

const CustomFieldValueResponse = Type.Object({
  custom_field_id: Type.Integer(),
  type: FieldType,
  value: Type.Unknown({ description: "The kind's JSON shape (see GET /custom-field-types)" }),
  updated_at: Type.String({ format: 'date-time' }),
});
type CustomFieldValueResponse = Static<typeof CustomFieldValueResponse>;
export const CustomFieldValuesResponse = Type.Object({ data: Type.Array(CustomFieldValueResponse) });
export type CustomFieldValuesResponse = Static<typeof CustomFieldValuesResponse>;

export const PutCustomFieldValuesBody = Type.Object(
  {
    values: Type.Array(
      Type.Object(
        { custom_field_id: Id, value: Type.Unknown({ description: 'null clears the value' }) },
        { additionalProperties: false, required: ['custom_field_id', 'value'] },
      ),
      { maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);
export type PutCustomFieldValuesBody = Static<typeof PutCustomFieldValuesBody>;
