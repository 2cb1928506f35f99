/** The only reader and writer of `notification` and `notification_preference` (issue 50); every function is scoped by entity and employee. */
import { and, count, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { notification, notificationPreference, type NotificationKind } from './notification.table.js';

export type NotificationRow = typeof notification.$inferSelect;
export type NewNotification = Pick<
  typeof notification.$inferInsert,
  'entityId' | 'employeeId' | 'kind' | 'causeKey' | 'conversationId' | 'actorEmployeeId' | 'data'
>;

/**
 * Stores `n` unless the employee turned its kind off or it is already stored for the same cause (any instance,
 * any delivery: `insert … on conflict do nothing` on the cause key). Returns the row when this call stored it.
 */
export async function insertOnce(db: Db, n: NewNotification): Promise<NotificationRow | undefined> {
  const [preference] = await db
    .select({ inApp: notificationPreference.inApp })
    .from(notificationPreference)
    .where(and(eq(notificationPreference.employeeId, n.employeeId), eq(notificationPreference.kind, n.kind)));
  if (preference?.inApp === false) return undefined;
  const [row] = await db.insert(notification).values(n).onConflictDoNothing().returning();
  return row;
}

/** The employee's notifications, newest first, older than `beforeId`. */
export async function listNotifications(
  db: Db,
  entityId: number,
  employeeId: number,
  q: { limit: number; beforeId?: number | undefined; unread?: boolean | undefined },
): Promise<NotificationRow[]> {
  return db
    .select()
    .from(notification)
    .where(
      and(
        eq(notification.entityId, entityId),
        eq(notification.employeeId, employeeId),
        q.beforeId !== undefined ? lt(notification.id, q.beforeId) : undefined,
        q.unread === true ? isNull(notification.readAt) : undefined,
      ),
    )
    .orderBy(desc(notification.id))
    .limit(q.limit);
}

export async function unreadCount(db: Db, entityId: number, employeeId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(notification)
    .where(and(eq(notification.entityId, entityId), eq(notification.employeeId, employeeId), isNull(notification.readAt)));
  return row?.n ?? 0;
}

/** Marks one read (a read one keeps its first `read_at`); undefined when it is not the employee's. */
export async function markRead(db: Db, entityId: number, employeeId: number, id: number): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notification)
    .set({ readAt: sql`coalesce(${notification.readAt}, now())` })
    .where(and(eq(notification.entityId, entityId), eq(notification.employeeId, employeeId), eq(notification.id, id)))
    .returning();
  return row;
}

/** Marks every unread notification of the employee read; returns how many this call marked. */
export async function markAllRead(db: Db, entityId: number, employeeId: number): Promise<number> {
  const rows = await db
    .update(notification)
    .set({ readAt: sql`now()` })
    .where(and(eq(notification.entityId, entityId), eq(notification.employeeId, employeeId), isNull(notification.readAt)))
    .returning({ id: notification.id });
  return rows.length;
}

/** The kinds the employee turned off. */
export async function offKinds(db: Db, entityId: number, employeeId: number): Promise<Set<NotificationKind>> {
  const rows = await db
    .select({ kind: notificationPreference.kind })
    .from(notificationPreference)
    .where(and(eq(notificationPreference.entityId, entityId), eq(notificationPreference.employeeId, employeeId), eq(notificationPreference.inApp, false)));
  return new Set(rows.map((r) => r.kind));
}

export async function setPreferences(db: Db, entityId: number, employeeId: number, prefs: { kind: NotificationKind; inApp: boolean }[]): Promise<void> {
  if (prefs.length === 0) return;
  await db
    .insert(notificationPreference)
    .values(prefs.map((p) => ({ entityId, employeeId, kind: p.kind, inApp: p.inApp })))
    .onConflictDoUpdate({ target: [notificationPreference.employeeId, notificationPreference.kind], set: { inApp: sql`excluded.in_app` } });
}
