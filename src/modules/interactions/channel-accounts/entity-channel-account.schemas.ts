import { Type, type Static } from 'typebox';
import { pageOf, pageQuery } from '../../../platform/http/pagination.js';
import { CHANNEL_TYPE_CODES, CHANNELS } from '../model/index.js';

const ChannelTypeCode = Type.Enum(CHANNEL_TYPE_CODES, {
  description:
    'chatapp_*: WhatsApp number; social_messenger: Messenger page; social_dm: Instagram account; web: website chat (its website token is the external account id)',
});

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
/** The planned channels (SPEC "Versioning"): named here so that registering one answers 422 `channel_planned`, not a bare 400. */
const PLANNED_CHANNELS = CHANNELS.filter((c) => c.availability === 'planned').map((c) => c.channel);

export const CreateEntityChannelAccountBody = Type.Object(
  {
    channel_type_code: Type.Union([ChannelTypeCode, Type.Enum(PLANNED_CHANNELS, { description: 'A planned channel: refused with 422 `channel_planned`' })]),
    ...fields,
    external_account_id: Type.Optional({
      ...fields.external_account_id,
      description: 'The platform account id; required except for web, whose public website token the service generates',
    }),
  },
  { additionalProperties: false },
);
export type CreateEntityChannelAccountBody = Static<typeof CreateEntityChannelAccountBody>;
export const UpdateEntityChannelAccountBody = Type.Object(
  { display_name: Type.Optional(fields.display_name), phone_number: fields.phone_number, is_active: fields.is_active },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEntityChannelAccountBody = Static<typeof UpdateEntityChannelAccountBody>;
