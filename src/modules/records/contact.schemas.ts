import { Type, type Static } from 'typebox';
import { Id, IdOf } from '../../platform/http/ids.js';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';
import { LabelFilterQuery } from '../labels/index.js';

const ChannelType = Type.Union([Type.Literal('phone'), Type.Literal('whatsapp'), Type.Literal('email'), Type.Literal('instagram'), Type.Literal('messenger')], {
  description: 'phone/whatsapp: E.164; email: lower-cased address; instagram/messenger: platform user id',
});

/** A learned channel may also be `web`: a website chat visitor's id (issue 32), never typed by a user. */
const LearnedChannelType = Type.Union([ChannelType, Type.Literal('web')], { description: 'as ChannelType; web: a website chat visitor id' });

const ContactChannelResponse = Type.Object({
  id: Type.Integer(),
  type: LearnedChannelType,
  identifier: Type.String({ description: 'Normalized identifier' }),
  label: Type.Union([Type.String(), Type.Null()]),
  is_manual: Type.Boolean({ description: 'true: typed by a user (editable through manual_channels); false: learned from a conversation' }),
});

export const ContactResponse = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  lead_id: Type.Integer(),
  name: Type.String(),
  channels: Type.Array(ContactChannelResponse),
  hasCustomFieldValues: Type.Boolean(),
  customFieldValuesCount: Type.Integer(),
  label_ids: Type.Array(Type.Integer(), { description: "The contact's label ids, ascending (names and colours: GET /labels)" }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type ContactResponse = Static<typeof ContactResponse>;
export const ContactListResponse = pageOf(ContactResponse);

export const ContactListQuery = Type.Object({
  ...pageQuery(100),
  group_id: Type.Optional(Id),
  lead_id: Type.Optional(Id),
  ...LabelFilterQuery,
});
export type ContactListQuery = Static<typeof ContactListQuery>;

export const ChannelInput = Type.Object(
  {
    type: ChannelType,
    identifier: Type.String({ minLength: 1, maxLength: 320 }),
    label: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type ChannelInput = Static<typeof ChannelInput>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
export const CreateContactBody = Type.Object(
  { lead_id: Id, name: Name, channels: Type.Optional(Type.Array(ChannelInput, { maxItems: 50 })) },
  { additionalProperties: false },
);
export type CreateContactBody = Static<typeof CreateContactBody>;

export const UpdateContactBody = Type.Object(
  {
    name: Type.Optional(Name),
    lead_id: Type.Optional(IdOf('Move the contact to another lead (and its group)')),
    manual_channels: Type.Optional(
      Type.Array(ChannelInput, { maxItems: 50, description: 'Replaces every manual channel; channels learned from conversations are kept' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateContactBody = Static<typeof UpdateContactBody>;
