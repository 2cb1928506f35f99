/**
 * `interaction.notification.created` (issue 50): a new notification, to its employee's own sockets only (their
 * member room, whatever else they hear), never to the entity room. Its payload is the list's item.
 */
import { Type, type Static } from 'typebox';
import { defineServerEvent, type RealtimeEmitter } from '../../platform/realtime/events.js';
import type { NotificationRow } from './notification.repository.js';
import { NotificationResponse } from './notification.schemas.js';

const NotificationCreatedPayload = Type.Object({ notification: NotificationResponse });

declare module '../../platform/realtime/events.js' {
  interface ServerToClientEvents {
    'interaction.notification.created': (payload: Static<typeof NotificationCreatedPayload>) => void;
  }
}

defineServerEvent('interaction.notification.created', NotificationCreatedPayload);

/** The API shape; `available` false hides `data` (its conversation is no longer the employee's to see). */
export function toNotificationResponse(r: NotificationRow, available: boolean): NotificationResponse {
  return {
    id: r.id,
    kind: r.kind,
    conversation_id: r.conversationId,
    available,
    actor_employee_id: available ? r.actorEmployeeId : null,
    data: available ? r.data : null,
    created_at: r.createdAt.toISOString(),
    read_at: r.readAt?.toISOString() ?? null,
  };
}

/** Pushes a notification just stored (its cause made it visible to the employee then). */
export function emitNotificationCreated(to: RealtimeEmitter, r: NotificationRow): void {
  to.toEntity(
    r.entityId,
    'interaction.notification.created',
    { notification: toNotificationResponse(r, true) },
    { employeeIds: [r.employeeId], personal: true },
  );
}
