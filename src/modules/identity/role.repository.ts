import { and, asc, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { role, rolePermission } from './role.table.js';

export type RoleRow = typeof role.$inferSelect & { permissions: string[] };

async function withPermissions(db: Db, rows: (typeof role.$inferSelect)[]): Promise<RoleRow[]> {
  if (rows.length === 0) return [];
  const perms = await db
    .select()
    .from(rolePermission)
    .where(
      inArray(
        rolePermission.roleId,
        rows.map((r) => r.id),
      ),
    );
  return rows.map((r) => ({
    ...r,
    permissions: perms
      .filter((p) => p.roleId === r.id)
      .map((p) => p.permissionCode)
      .sort(),
  }));
}

/** Roles visible from `entityId`: its own plus the global ones. */
export async function listRoles(db: Db, entityId: number): Promise<RoleRow[]> {
  const rows = await db
    .select()
    .from(role)
    .where(or(eq(role.entityId, entityId), isNull(role.entityId)))
    .orderBy(asc(role.id));
  return withPermissions(db, rows);
}

export async function findRole(db: Db, entityId: number, id: number): Promise<RoleRow | undefined> {
  const rows = await db
    .select()
    .from(role)
    .where(and(eq(role.id, id), or(eq(role.entityId, entityId), isNull(role.entityId))));
  return (await withPermissions(db, rows))[0];
}

export async function findRoleByName(db: Db, entityId: number | null, name: string) {
  const [row] = await db
    .select()
    .from(role)
    .where(and(eq(role.name, name), entityId === null ? isNull(role.entityId) : eq(role.entityId, entityId)));
  return row;
}

export async function insertRole(db: Db, values: { entityId: number | null; name: string; description: string | null }, permissions: string[]) {
  const [row] = await db.insert(role).values(values).returning();
  await setRolePermissions(db, row!.id, permissions);
  return row!;
}

export async function updateRole(db: Db, id: number, values: Partial<{ name: string; description: string | null }>): Promise<void> {
  await db
    .update(role)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(role.id, id));
}

export async function setRolePermissions(db: Db, roleId: number, permissions: string[]): Promise<void> {
  await db.delete(rolePermission).where(eq(rolePermission.roleId, roleId));
  const unique = [...new Set(permissions)];
  if (unique.length > 0) await db.insert(rolePermission).values(unique.map((permissionCode) => ({ roleId, permissionCode })));
}
