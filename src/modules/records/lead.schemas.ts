import { Type, type Static } from 'typebox';
import { Id, IdOf } from '../../platform/http/ids.js';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';
import { LabelFilterQuery } from '../labels/index.js';

const LeadKind = Type.Union([Type.Literal('lead'), Type.Literal('client')], { description: 'client = the lead carries an erp_id' });

export const LeadResponse = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  name: Type.String(),
  kind: StringEnum(['lead', 'client'], { description: 'client = the lead carries an erp_id' }),
  erp_id: NullableString(),
  email: NullableString(),
  phone: NullableString({ description: 'E.164' }),
  tax_id: NullableString(),
  label_ids: Type.Array(Type.Integer(), { description: "The lead's label ids, ascending (names and colours: GET /labels)" }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type LeadResponse = Static<typeof LeadResponse>;
export const LeadListResponse = pageOf(LeadResponse);

export const LeadListQuery = Type.Object({
  ...pageQuery(50),
  group_id: Type.Optional(Id),
  kind: Type.Optional(LeadKind),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive substring of name, e-mail or erp_id' })),
  employee_id: Type.Optional(IdOf('Effective seller (direct assignment, else inherited from the group)')),
  ...LabelFilterQuery,
});
export type LeadListQuery = Static<typeof LeadListQuery>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Nullable = (s: ReturnType<typeof Type.String>) => Type.Optional(Type.Union([s, Type.Null()]));
const fields = {
  name: Name,
  erp_id: Nullable(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })),
  email: Nullable(Type.String({ maxLength: 320, format: 'email' })),
  phone: Nullable(Type.String({ maxLength: 40 })),
  tax_id: Nullable(Type.String({ maxLength: 40 })),
};
export const CreateLeadBody = Type.Object({ group_id: Id, ...fields }, { additionalProperties: false });
export type CreateLeadBody = Static<typeof CreateLeadBody>;
export const UpdateLeadBody = Type.Object(
  { group_id: Type.Optional(Id), ...fields, name: Type.Optional(Name) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateLeadBody = Static<typeof UpdateLeadBody>;
