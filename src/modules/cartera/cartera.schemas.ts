import { Type, type Static } from 'typebox';
import { Id, IdOf } from '../../platform/http/ids.js';
import { pageQuery, Pagination } from '../../platform/http/pagination.js';
import { NullableObject, NullableString, StringEnum } from '../../platform/http/schema-types.js';
import { LabelFilterQuery } from '../labels/index.js';

const CarteraSort = Type.Union(
  [Type.Literal('creation'), Type.Literal('-creation'), Type.Literal('name'), Type.Literal('-name'), Type.Literal('group'), Type.Literal('-group')],
  { default: '-creation', description: 'Field to sort by; a leading - sorts descending' },
);
type CarteraSort = Static<typeof CarteraSort>;

const filters = {
  seller_id: Type.Optional(IdOf('Effective seller: direct assignment, else inherited from the group')),
  unassigned: Type.Optional(Type.Boolean({ description: 'Only leads without any seller' })),
  group_id: Type.Optional(Id),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Substring of the lead or group name' })),
  ...LabelFilterQuery,
};
export const CarteraListQuery = Type.Object({ ...pageQuery(50), sort: Type.Optional(CarteraSort), ...filters });
export type CarteraListQuery = Static<typeof CarteraListQuery>;
export const CarteraExportQuery = Type.Object({
  kind: Type.Union([Type.Literal('lead'), Type.Literal('client')], { default: 'lead' }),
  ...filters,
});
export type CarteraExportQuery = Static<typeof CarteraExportQuery>;

const Seller = Type.Object({ id: Type.Integer(), name: Type.String() });
const Nullish = Type.Null({ description: 'Not held by this service yet: always null' });

const common = {
  id: Type.Integer({ description: 'Lead id' }),
  groupId: Type.Integer(),
  group: Type.String({ description: 'Group name' }),
  erpId: NullableString(),
  creation: Type.String({ format: 'date-time' }),
  seller: NullableObject(Type.Object({ id: Type.Integer(), name: Type.String(), source: StringEnum(['lead', 'group']) }), {
    description: 'Effective seller: a direct lead assignment wins over one inherited from the group',
  }),
  sellers: Type.Object({ direct: Type.Array(Seller), inherited: Type.Array(Seller) }, { description: 'Both sources of the derivation' }),
  contact: NullableObject(Type.Object({ id: Type.Integer(), name: Type.String() }), { description: 'Latest contact of the lead' }),
  lastPurchase: Nullish,
  frequency: Nullish,
  agenda: Nullish,
  interaction: NullableObject(
    Type.Object({
      conversationId: Type.Integer(),
      channelTypeCode: Type.String({ description: 'Channel of the conversation (chatapp_api, social_messenger, social_dm, ...)' }),
      lastMessageAt: Type.String({ format: 'date-time', description: 'Time of its latest message, either direction' }),
    }),
    { description: "The lead's conversation with the latest message; null when it has none" },
  ),
};
const leadProperties = { ...common, lead: Type.String({ description: 'Lead name' }) };
const clientProperties = { ...common, client: Type.String({ description: 'Client name' }) };

const CarteraLeadItem = Type.Object(leadProperties);
const CarteraClientItem = Type.Object(clientProperties);
/** The SPEC item: `lead` (leads list) or `client` (clients list) holds the record's name. */
export type CarteraItem<K extends 'lead' | 'client' = 'lead' | 'client'> = K extends 'lead' ? Static<typeof CarteraLeadItem> : Static<typeof CarteraClientItem>;
export const CarteraLeadList = Type.Object({ data: Type.Array(CarteraLeadItem), pagination: Pagination });
export const CarteraClientList = Type.Object({ data: Type.Array(CarteraClientItem), pagination: Pagination });

const detailExtras = {
  email: NullableString(),
  phone: NullableString(),
  taxId: NullableString(),
};
export const CarteraLeadDetail = Type.Object({ ...leadProperties, ...detailExtras });
export const CarteraClientDetail = Type.Object({ ...clientProperties, ...detailExtras });

export const CarteraDetailPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })),
    email: Type.Optional(Type.Union([Type.String({ maxLength: 320, format: 'email' }), Type.Null()])),
    phone: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    taxId: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type CarteraDetailPatch = Static<typeof CarteraDetailPatch>;
