/** TypeBox schemas of the conversations API and the realtime payloads that reuse them. */
import { Id, IdParams } from '../../../platform/http/ids.js';
import { AppliedLabel, LabelFilterQuery } from '../../labels/index.js';
import { Type, type Static } from 'typebox';
import { ASSIGNMENT_STATUSES, CHANNEL_TYPE_CODES, CONVERSATION_STATUSES, MESSAGE_DIRECTIONS, MESSAGE_STATUSES, SLA_STATUSES } from '../model/index.js';

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
    Type.String({
      format: 'date-time',
      description:
        "When free-form messages stop being allowed (24 h after the customer's last message); null when the customer never wrote, and always on the web channel, which has no service window. Templates are always allowed.",
    }),
  ),
  follow_up: Type.Boolean(),
  workspace_notes: Type.String(),
  status: Type.Enum(CONVERSATION_STATUSES, { description: 'open, pending (waiting on the customer), snoozed (until snoozed_until) or resolved' }),
  status_changed_at: Nullable(Type.String({ format: 'date-time', description: 'When the status last changed; null when it never did' })),
  status_changed_by: Nullable(Type.Integer({ description: 'Employee who changed the status last; null for the system' })),
  snoozed_until: Nullable(Type.String({ format: 'date-time', description: 'When a snoozed conversation opens again; null unless snoozed' })),
  first_response_due_at: Nullable(
    Type.String({ format: 'date-time', description: "When the SLA policy's first response is due; null when none is awaited, or while the clock is paused" }),
  ),
  next_response_due_at: Nullable(
    Type.String({ format: 'date-time', description: "When the answer to the customer's latest message is due; null when none is awaited, or while paused" }),
  ),
  resolution_due_at: Nullable(
    Type.String({ format: 'date-time', description: 'When the conversation is due to be resolved; null without a target, resolved, or paused' }),
  ),
  sla_status: Nullable(
    Type.Enum(SLA_STATUSES, {
      description:
        "on_track, at_risk (a clock used the policy's at_risk_share) or breached (a target of the current cycle was missed); null without an SLA policy",
    }),
  ),
  labels: Type.Array(AppliedLabel, { description: 'Its labels: its own, its contact’s and its lead’s, each once, the nearest source first' }),
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

/** Longest body of a private note, in UTF-16 units (issue 50). */
export const NOTE_MAX_LENGTH = 4096;

/**
 * A private note on a conversation (issue 50): agents only, never sent to the customer. `kind` is always
 * `note`, so a history with notes (`include_notes=true`) tells its items apart (messages carry no `kind`).
 * `body` holds `@[employee:<id>]` tokens for mentions; `mentioned_employee_ids` lists them.
 */
export const NoteResponse = Type.Object({
  kind: Type.Literal('note'),
  id: Type.Integer(),
  conversation_id: Type.Integer(),
  author_employee_id: Nullable(Type.Integer({ description: 'The employee who wrote it; null when a workflow did' })),
  author_workflow_id: Nullable(Type.Integer({ description: 'The workflow whose `add_note` step wrote it' })),
  body: Type.String({ maxLength: NOTE_MAX_LENGTH }),
  mentioned_employee_ids: Type.Array(Type.Integer()),
  attachment_ids: Type.Array(Type.Integer(), { description: 'Media objects (media module) attached to the note' }),
  occurred_at: Type.String({ format: 'date-time', description: 'When it was written: its place among the messages' }),
  created_at: Type.String({ format: 'date-time' }),
  edited_at: Nullable(Type.String({ format: 'date-time' })),
});
export type NoteResponse = Static<typeof NoteResponse>;

const Assignee = Type.String({ pattern: '^(me|none|[1-9][0-9]{0,9})$', description: '`me`, `none` (unassigned or waiting in a queue) or an employee id' });
const InboxFilters = {
  status: Type.Optional(
    Type.Array(Type.Enum(CONVERSATION_STATUSES), {
      minItems: 1,
      maxItems: CONVERSATION_STATUSES.length,
      description: 'One or several statuses (repeat the parameter: `status=open&status=pending`)',
    }),
  ),
  assignee: Type.Optional(Assignee),
  queue_id: Type.Optional(Id),
  channel_type_code: Type.Optional(Type.Enum(CHANNEL_TYPE_CODES)),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Text in the contact's name, number (chat id) or last message" })),
  ...LabelFilterQuery,
};

export const ConversationListQuery = Type.Object({
  filter: Type.Optional(Type.Union([Type.Literal('mine'), Type.Literal('unassigned'), Type.Literal('all')], { default: 'all' })),
  ...InboxFilters,
  follow_up: Type.Optional(Type.Boolean()),
  unread: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ConversationListQuery = Static<typeof ConversationListQuery>;

/** The tab badges' filters: the list's, without the tab (`filter`, `assignee`) and status, which the counts break down. */
export const ConversationCountsQuery = Type.Object({
  queue_id: InboxFilters.queue_id,
  channel_type_code: InboxFilters.channel_type_code,
  q: InboxFilters.q,
  label: InboxFilters.label,
  label_all: InboxFilters.label_all,
});
export type ConversationCountsQuery = Static<typeof ConversationCountsQuery>;
const StatusCounts = Type.Object({ open: Type.Integer(), pending: Type.Integer(), snoozed: Type.Integer(), resolved: Type.Integer() });
export const ConversationCountsResponse = Type.Object({ mine: StatusCounts, unassigned: StatusCounts, all: StatusCounts });
export type ConversationCountsResponse = Static<typeof ConversationCountsResponse>;

const PageInfo = Type.Object({ next_cursor: Nullable(Type.String()), limit: Type.Integer() });
export const ConversationListResponse = Type.Object({ data: Type.Array(ConversationResponse), pagination: PageInfo });
export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'From the previous page of the same `include_notes`' })),
  around: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description:
        'A message id of the conversation (a search result): the page holds it, up to half the page of newer messages above it and older ones below; `next_cursor` goes on to older ones. Not with `cursor` nor `include_notes`',
    }),
  ),
  include_notes: Type.Optional(Type.Boolean({ default: false, description: 'Also the private notes (`kind: note`), in order with the messages (issue 50)' })),
});
export const HistoryResponse = Type.Object({ data: Type.Array(Type.Union([MessageResponse, NoteResponse])), pagination: PageInfo });
export { IdParams };
export const NotesBody = Type.Object({ workspace_notes: Type.String({ maxLength: 20000 }) }, { additionalProperties: false });
export const FollowUpBody = Type.Object({ follow_up: Type.Boolean({ default: true }) }, { additionalProperties: false });
export const AssignBody = Type.Object({ employee_id: Id }, { additionalProperties: false });
