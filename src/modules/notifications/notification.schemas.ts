/** TypeBox schemas of the notification centre (issue 50). */
import { Type, type Static } from 'typebox';
import { NOTIFICATION_KINDS } from './notification.table.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const NotificationResponse = Type.Object({
  id: Type.Integer(),
  kind: Type.Enum(NOTIFICATION_KINDS),
  conversation_id: Nullable(Type.Integer()),
  /** False once the employee may no longer see its conversation: `data` is then null (the item stays). */
  available: Type.Boolean({ description: 'False when the employee may no longer see its conversation: `data` is null then' }),
  actor_employee_id: Nullable(Type.Integer({ description: 'Who caused it (assigned, mentioned, reopened); null for the system' })),
  data: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'What it is about, by kind (docs/api/notifications.md)' })),
  created_at: Type.String({ format: 'date-time' }),
  read_at: Nullable(Type.String({ format: 'date-time' })),
});
export type NotificationResponse = Static<typeof NotificationResponse>;

export const NotificationListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  cursor: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'The previous page’s `next_cursor`' })),
  unread: Type.Optional(Type.Boolean({ description: 'Only the unread' })),
});
export const NotificationListResponse = Type.Object({
  data: Type.Array(NotificationResponse),
  pagination: Type.Object({ next_cursor: Nullable(Type.String()), limit: Type.Integer() }),
});
export const UnreadCountResponse = Type.Object({ unread: Type.Integer() });
export const MarkAllReadResponse = Type.Object({ marked: Type.Integer(), unread: Type.Integer() });
const Preference = Type.Object({ kind: Type.Enum(NOTIFICATION_KINDS), in_app: Type.Boolean() }, { additionalProperties: false });
export const PreferencesResponse = Type.Object({ data: Type.Array(Preference) });
export const PreferencesBody = Type.Object(
  { preferences: Type.Array(Preference, { minItems: 1, maxItems: NOTIFICATION_KINDS.length, uniqueItems: true }) },
  { additionalProperties: false },
);
