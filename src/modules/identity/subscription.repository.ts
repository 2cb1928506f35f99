import { and, asc, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runShapedIn } from '../../db/statement.js';
import { IS_SUPER_ADMIN_SUBJECT } from './subscription.sql.js';
import { SUPER_ADMIN_ROLE } from '../../platform/permissions/resolve.js';
import { role } from './role.table.js';
import { subscription, subscriptionOverride } from './subscription.table.js';

export type SubscriptionRow = typeof subscription.$inferSelect & {
  roleName: string;
  overrides: { code: string; effect: 'ALLOW' | 'DENY' }[];
};

/** Subscriptions of `entityId`, plus the global ones when `includeGlobal`, filtered by `where`. */
export async function listSubscriptions(
  db: Db,
  entityId: number,
  opts: { includeGlobal: boolean; employeeId?: number | undefined; userId?: number | undefined; id?: number },
): Promise<SubscriptionRow[]> {
  const scope = opts.includeGlobal ? or(eq(subscription.entityId, entityId), isNull(subscription.entityId)) : eq(subscription.entityId, entityId);
  const filters: (SQL | undefined)[] = [scope];
  if (opts.employeeId !== undefined) filters.push(eq(subscription.employeeId, opts.employeeId));
  if (opts.userId !== undefined) filters.push(eq(subscription.userId, opts.userId));
  if (opts.id !== undefined) filters.push(eq(subscription.id, opts.id));
  const rows = await db
    .select({ s: subscription, roleName: role.name })
    .from(subscription)
    .innerJoin(role, eq(role.id, subscription.roleId))
    .where(and(...filters))
    .orderBy(asc(subscription.id));
  if (rows.length === 0) return [];
  const overrides = await db
    .select()
    .from(subscriptionOverride)
    .where(
      inArray(
        subscriptionOverride.subscriptionId,
        rows.map((r) => r.s.id),
      ),
    )
    .orderBy(asc(subscriptionOverride.permissionCode));
  return rows.map((r) => ({
    ...r.s,
    roleName: r.roleName,
    overrides: overrides.filter((o) => o.subscriptionId === r.s.id).map((o) => ({ code: o.permissionCode, effect: o.effect })),
  }));
}

export async function insertSubscription(
  db: Db,
  values: { employeeId: number | null; userId: number | null; entityId: number | null; roleId: number },
): Promise<number> {
  const [row] = await db.insert(subscription).values(values).returning({ id: subscription.id });
  return row!.id;
}

export async function updateSubscriptionRole(db: Db, id: number, roleId: number): Promise<void> {
  await db.update(subscription).set({ roleId, updatedAt: new Date() }).where(eq(subscription.id, id));
}

export async function replaceOverrides(db: Db, subscriptionId: number, overrides: { code: string; effect: 'ALLOW' | 'DENY' }[]): Promise<void> {
  await db.delete(subscriptionOverride).where(eq(subscriptionOverride.subscriptionId, subscriptionId));
  if (overrides.length > 0) {
    await db.insert(subscriptionOverride).values(overrides.map((o) => ({ subscriptionId, permissionCode: o.code, effect: o.effect })));
  }
  await db.update(subscription).set({ updatedAt: new Date() }).where(eq(subscription.id, subscriptionId));
}

/** True when the subject (an employee, through its user, or a user) holds a global super_admin subscription. */
export async function isSuperAdminSubject(db: Db, subject: { employeeId: number | null; userId: number | null }): Promise<boolean> {
  const [row] = await runShapedIn<{ yes: boolean }, undefined>(db, IS_SUPER_ADMIN_SUBJECT, undefined, {
    role: SUPER_ADMIN_ROLE,
    userId: subject.userId,
    employeeId: subject.employeeId,
  });
  return row?.yes === true;
}
