/** TypeBox schemas of the conversations API and the realtime payloads that reuse them. */
import { Id, IdParams } from '../../platform/http/ids.js';
import { Type, type Static } from 'typebox';
import { ASSIGNMENT_STATUSES, CHANNEL_TYPE_CODES, MESSAGE_DIRECTIONS, MESSAGE_STATUSES } from './interactions.enums.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ConversationResponse = Type.Object({
  id: Type.Integer(),
  entity_id: Type.Integer(),
  entity_channel_account_id: Type.Integer(),
  channel_type_code: Type.Enum(CHANNEL_TYPE_CODES),
  external_chat_id: Type.String(),
  contact_id: Type.Integer(),
  lead_id: Type.Integer(),
  group_id: Type.Integer(),
  sender_name: Nullable(Type.String()),
  assignment_status: Type.Enum(ASSIGNMENT_STATUSES),
  assigned_employee_id: Nullable(Type.Integer()),
  assigned_at: Nullable(Type.String({ format: 'date-time' })),
  queue_id: Nullable(Type.Integer()),
  last_message_id: Nullable(Type.Integer()),
  last_message_preview: Nullable(Type.String()),
  last_message_at: Nullable(Type.String({ format: 'date-time' })),
  unread_count: Type.Integer(),
  service_window_expires_at: Nullable(
    Type.String({ format: 'date-time', description: 'When free-form messages stop being allowed (24 h after the customer\'s last message); null when the customer never wrote. Templates are always allowed.' }),
  ),
  follow_up: Type.Boolean(),
  workspace_notes: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type ConversationResponse = Static<typeof ConversationResponse>;

export const MessageResponse = Type.Object({
  id: Type.Integer(),
  conversation_id: Type.Integer(),
  direction: Type.Enum(MESSAGE_DIRECTIONS),
  type: Type.String(),
  text: Nullable(Type.String()),
  content: Type.Record(Type.String(), Type.Unknown()),
  external_message_id: Type.String(),
  reply_to_external_id: Nullable(Type.String()),
  media_id: Nullable(Type.String()),
  status: Nullable(Type.Enum(MESSAGE_STATUSES)),
  sent_at: Nullable(Type.String({ format: 'date-time' })),
  delivered_at: Nullable(Type.String({ format: 'date-time' })),
  read_at: Nullable(Type.String({ format: 'date-time' })),
  failed_at: Nullable(Type.String({ format: 'date-time' })),
  errors: Nullable(Type.Array(Type.Unknown())),
  occurred_at: Type.String({ format: 'date-time' }),
});
export type MessageResponse = Static<typeof MessageResponse>;

export const ConversationListQuery = Type.Object({
  filter: Type.Optional(Type.Union([Type.Literal('mine'), Type.Literal('unassigned'), Type.Literal('all')], { default: 'all' })),
  channel_type_code: Type.Optional(Type.Enum(CHANNEL_TYPE_CODES)),
  follow_up: Type.Optional(Type.Boolean()),
  unread: Type.Optional(Type.Boolean()),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ConversationListQuery = Static<typeof ConversationListQuery>;

export const PageInfo = Type.Object({ next_cursor: Nullable(Type.String()), limit: Type.Integer() });
export const ConversationListResponse = Type.Object({ data: Type.Array(ConversationResponse), pagination: PageInfo });
export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
export const HistoryResponse = Type.Object({ data: Type.Array(MessageResponse), pagination: PageInfo });
export { IdParams };
export const NotesBody = Type.Object({ workspace_notes: Type.String({ maxLength: 20000 }) }, { additionalProperties: false });
export const FollowUpBody = Type.Object({ follow_up: Type.Boolean({ default: true }) }, { additionalProperties: false });
export const AssignBody = Type.Object({ employee_id: Id }, { additionalProperties: false });
