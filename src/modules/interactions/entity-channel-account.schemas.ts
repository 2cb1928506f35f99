import { Type, type Static } from 'typebox';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';
import { CHANNEL_TYPE_CODES } from './interactions.enums.js';

export const ChannelTypeCode = Type.Enum(CHANNEL_TYPE_CODES, { description: 'chatapp_*: WhatsApp number; social_messenger: Messenger page; social_dm: Instagram account' });

export const EntityChannelAccountResponse = Type.Object({
  id: Type.Integer(),
  channel_type_code: ChannelTypeCode,
  external_account_id: Type.String(),
  display_name: Type.String(),
  phone_number: Type.Union([Type.String(), Type.Null()]),
  is_active: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type EntityChannelAccountResponse = Static<typeof EntityChannelAccountResponse>;
export const EntityChannelAccountListResponse = pageOf(EntityChannelAccountResponse);

export const EntityChannelAccountListQuery = Type.Object({ ...pageQuery(100), channel_type_code: Type.Optional(ChannelTypeCode) });
export type EntityChannelAccountListQuery = Static<typeof EntityChannelAccountListQuery>;

const fields = {
  external_account_id: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  display_name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  phone_number: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
  is_active: Type.Optional(Type.Boolean()),
};
export const CreateEntityChannelAccountBody = Type.Object({ channel_type_code: ChannelTypeCode, ...fields }, { additionalProperties: false });
export type CreateEntityChannelAccountBody = Static<typeof CreateEntityChannelAccountBody>;
export const UpdateEntityChannelAccountBody = Type.Object(
  { display_name: Type.Optional(fields.display_name), phone_number: fields.phone_number, is_active: fields.is_active },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEntityChannelAccountBody = Static<typeof UpdateEntityChannelAccountBody>;
