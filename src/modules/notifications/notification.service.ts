/**
 * The notification centre (issue 50; docs/api/notifications.md): each employee's notifications, made from the
 * interactions module's domain events, kept once per cause, listed newest first, read one by one or all at once,
 * and pushed live (`interaction.notification.created`) to the employee's own sockets only.
 *
 * Exactly once per cause: every event is handled twice on purpose, at once in the process that published it
 * (in-process subscriber, so a notification follows its cause within milliseconds) and by a durable job
 * (`<event>:notifications`, so one published right before a crash is not lost); both insert with the cause as
 * unique key (`on conflict do nothing`), so whichever comes second, on any instance, stores and pushes nothing.
 *
 * Visibility: a notification about a conversation the employee may no longer see stays in the list, `available:
 * false` and without `data`.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { DomainEventMap } from '../../platform/events/domain-events.js';
import { notFound } from '../../platform/errors.js';
import type { RealtimeEmitter } from '../../platform/realtime/events.js';
import { emitNotificationCreated, toNotificationResponse } from './notification.realtime.js';
import * as repo from './notification.repository.js';
import type { NewNotification, NotificationRow } from './notification.repository.js';
import type { NotificationResponse } from './notification.schemas.js';
import { NOTIFICATION_KINDS, type NotificationKind } from './notification.table.js';

type Page = { data: NotificationResponse[]; pagination: { next_cursor: string | null; limit: number } };

export interface Notifications {
  list(p: Principal, q: { limit?: number | undefined; cursor?: string | undefined; unread?: boolean | undefined }): Promise<Page>;
  unread(p: Principal): Promise<number>;
  /** 404 for a notification that is not the caller's (another employee's, another entity's). */
  markRead(p: Principal, id: number): Promise<NotificationResponse>;
  markAllRead(p: Principal): Promise<{ marked: number; unread: number }>;
  preferences(p: Principal): Promise<{ kind: NotificationKind; in_app: boolean }[]>;
  setPreferences(p: Principal, prefs: { kind: NotificationKind; in_app: boolean }[]): Promise<{ kind: NotificationKind; in_app: boolean }[]>;
  /** Stores `n` once per cause and pushes it to the employee's sockets when this call stored it (the consumers' one write). */
  record(n: NewNotification): Promise<NotificationRow | undefined>;
}

export function createNotifications(deps: {
  db: Db;
  realtime: RealtimeEmitter;
  /** The conversation ids among `ids` the principal may see now (interactions' visibility rule). */
  visibleConversations(p: Principal, ids: readonly number[]): Promise<Set<number>>;
}): Notifications {
  const { db } = deps;
  async function present(p: Principal, rows: NotificationRow[]): Promise<NotificationResponse[]> {
    const ids = [...new Set(rows.flatMap((r) => (r.conversationId === null ? [] : [r.conversationId])))];
    const visible = await deps.visibleConversations(p, ids);
    return rows.map((r) => toNotificationResponse(r, r.conversationId === null || visible.has(r.conversationId)));
  }
  return {
    async list(p, q) {
      const limit = q.limit ?? 25;
      const rows = await repo.listNotifications(db, p.entityId, p.employeeId, {
        limit: limit + 1,
        beforeId: q.cursor === undefined ? undefined : Number(q.cursor),
        unread: q.unread,
      });
      const page = rows.slice(0, limit);
      return { data: await present(p, page), pagination: { next_cursor: rows.length > limit ? String(page.at(-1)!.id) : null, limit } };
    },
    unread: (p) => repo.unreadCount(db, p.entityId, p.employeeId),
    async markRead(p, id) {
      const row = await repo.markRead(db, p.entityId, p.employeeId, id);
      if (!row) throw notFound('notification', id);
      return (await present(p, [row]))[0]!;
    },
    async markAllRead(p) {
      const marked = await repo.markAllRead(db, p.entityId, p.employeeId);
      return { marked, unread: await repo.unreadCount(db, p.entityId, p.employeeId) };
    },
    async preferences(p) {
      const off = await repo.offKinds(db, p.entityId, p.employeeId);
      return NOTIFICATION_KINDS.map((kind) => ({ kind, in_app: !off.has(kind) }));
    },
    async setPreferences(p, prefs) {
      await repo.setPreferences(
        db,
        p.entityId,
        p.employeeId,
        prefs.map((x) => ({ kind: x.kind, inApp: x.in_app })),
      );
      return this.preferences(p);
    },
    async record(n) {
      const row = await repo.insertOnce(db, n);
      if (row) emitNotificationCreated(deps.realtime, row);
      return row;
    },
  };
}

/** What each event means for whom: the notifications it causes (none for the actor themselves). */
const NOTIFYING_EVENTS = {
  'conversation.assigned': (e) =>
    e.changedByEmployeeId === e.employeeId
      ? []
      : [
          {
            entityId: e.entityId,
            employeeId: e.employeeId,
            kind: 'conversation_assigned',
            causeKey: `${e.conversationId}:${e.occurredAt}`,
            conversationId: e.conversationId,
            actorEmployeeId: e.changedByEmployeeId,
            data: { via: e.via, queue_id: e.queueId },
          },
        ],
  'conversation.note_written': (e) =>
    e.mentioned_employee_ids
      .filter((id) => id !== e.author_employee_id)
      .map((employeeId) => ({
        entityId: e.entity_id,
        employeeId,
        kind: 'mentioned',
        // One per note and employee: an edit that mentions them again notifies nobody twice.
        causeKey: `note:${e.note_id}`,
        conversationId: e.conversation_id,
        actorEmployeeId: e.author_employee_id,
        data: { note_id: e.note_id, author_workflow_id: e.author_workflow_id },
      })),
  'conversation.sla_at_risk': (e) => slaNotification(e, 'sla_at_risk'),
  'conversation.sla_breached': (e) => slaNotification(e, 'sla_breached'),
  'conversation.reopened': (e) =>
    e.assigned_employee_id === null || e.assigned_employee_id === e.changed_by_employee_id
      ? []
      : [
          {
            entityId: e.entity_id,
            employeeId: e.assigned_employee_id,
            kind: 'conversation_reopened',
            causeKey: `${e.conversation_id}:${e.occurred_at}`,
            conversationId: e.conversation_id,
            actorEmployeeId: e.changed_by_employee_id,
            data: { via: e.via, from_status: e.from_status },
          },
        ],
} satisfies { [K in keyof DomainEventMap]?: (e: DomainEventMap[K]) => NewNotification[] };

function slaNotification(
  e: DomainEventMap['conversation.sla_breached'] | DomainEventMap['conversation.sla_at_risk'],
  kind: 'sla_at_risk' | 'sla_breached',
): NewNotification[] {
  if (e.assigned_employee_id === null) return [];
  return [
    {
      entityId: e.entity_id,
      employeeId: e.assigned_employee_id,
      kind,
      causeKey: `${e.conversation_id}:${e.sla_metric}:${e.due_at}`,
      conversationId: e.conversation_id,
      actorEmployeeId: null,
      data: { metric: e.sla_metric, due_at: e.due_at, policy_id: e.sla_policy_id },
    },
  ];
}

/**
 * Subscribes the centre to every notifying event twice (module comment): in process, and durably as consumer
 * `notifications` (only events that notify someone get a job).
 */
export async function subscribeNotifications(events: EventBus, notifications: Pick<Notifications, 'record'>): Promise<void> {
  for (const [name, toNotifications] of Object.entries(NOTIFYING_EVENTS) as [keyof typeof NOTIFYING_EVENTS, (e: unknown) => NewNotification[]][]) {
    const handle = async (payload: unknown) => {
      for (const n of toNotifications(payload)) await notifications.record(n);
    };
    events.subscribe(name, handle);
    await events.subscribeDurably(name, 'notifications', handle, {
      interest: async (_tx, payloads) => payloads.map((p) => toNotifications(p).length > 0),
    });
  }
}
