/**
 * Trusted provisioning used by the CLI and the demo seed (no caller checks): entities, users, employees,
 * roles and subscriptions. HTTP administration goes through the role and subscription services instead.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runStatementIn } from '../../db/statement.js';
import { ALIGN_ENTITY_ID_SEQUENCE } from './entity.sql.js';
import { hashPassword } from '../../platform/auth/password.js';
import { SUPER_ADMIN_ROLE } from '../../platform/permissions/resolve.js';
import { entity } from './entity.table.js';
import { appUser } from './user.table.js';
import { employee } from './employee.table.js';
import { subscription } from './subscription.table.js';
import { findRoleByName, insertRole, setRolePermissions } from './role.repository.js';
import { replaceOverrides } from './subscription.repository.js';
import { assertKnownCodes } from './admin.rules.js';
import { findUserByEmail } from './user.repository.js';
import { findEmployeeOfUser } from './membership.repository.js';

export function createDirectoryService(db: Db) {
  return {
    /** The user with this e-mail (compared lower-cased), or undefined. */
    findUserByEmail: (email: string) => findUserByEmail(db, email),

    /** The employee row of `userId` in `entityId` (active or not), or undefined. */
    findEmployee: (userId: number, entityId: number) => findEmployeeOfUser(db, entityId, userId),

    /** The role named `name` in `entityId` (null: global roles), or undefined. */
    findRole: (entityId: number | null, name: string) => findRoleByName(db, entityId, name),

    /** True when at least one entity exists (false on a fresh database: the first embedded start seeds demo data). */
    async hasEntities(): Promise<boolean> {
      const rows = await db.select({ id: entity.id }).from(entity).limit(1);
      return rows.length > 0;
    },

    async ensureEntity(values: { id?: number; name: string; logoUrl?: string | null }) {
      const [found] =
        values.id !== undefined
          ? await db.select().from(entity).where(eq(entity.id, values.id))
          : await db.select().from(entity).where(eq(entity.name, values.name));
      if (found) return found;
      const [row] = await db.insert(entity).values(values).returning();
      // Explicit ids must not collide with later generated ones.
      await runStatementIn(db, ALIGN_ENTITY_ID_SEQUENCE, []);
      return row!;
    },

    /** Creates or updates the user with this e-mail; `password` null leaves it unset. */
    async upsertUser(values: { email: string; name: string; password?: string | null; erpUserId?: number | null }) {
      const email = values.email.trim().toLowerCase();
      const passwordHash = values.password ? await hashPassword(values.password) : undefined;
      const [row] = await db
        .insert(appUser)
        .values({ email, name: values.name, passwordHash: passwordHash ?? null, erpUserId: values.erpUserId ?? null })
        .onConflictDoUpdate({
          target: appUser.email,
          set: {
            name: values.name,
            ...(passwordHash ? { passwordHash } : {}),
            ...(values.erpUserId !== undefined ? { erpUserId: values.erpUserId } : {}),
            updatedAt: new Date(),
          },
        })
        .returning();
      return row!;
    },

    async ensureEmployee(values: { userId: number; entityId: number; name: string; erpEmployeeId?: number | null }) {
      const [found] = await db
        .select()
        .from(employee)
        .where(and(eq(employee.userId, values.userId), eq(employee.entityId, values.entityId)));
      if (found) return found;
      const [row] = await db
        .insert(employee)
        .values({ ...values, erpEmployeeId: values.erpEmployeeId ?? null })
        .returning();
      return row!;
    },

    /** Creates the role (entity role, or global when `entityId` is null) or replaces its base codes. */
    async ensureRole(values: { entityId: number | null; name: string; description?: string | null; permissions: string[] }) {
      assertKnownCodes(values.permissions, 'permissions');
      const found = await findRoleByName(db, values.entityId, values.name);
      if (found) {
        await setRolePermissions(db, found.id, values.permissions);
        return found;
      }
      return insertRole(db, { entityId: values.entityId, name: values.name, description: values.description ?? null }, values.permissions);
    },

    async ensureSuperAdminRole() {
      return this.ensureRole({ entityId: null, name: SUPER_ADMIN_ROLE, description: 'Grants every permission', permissions: [] });
    },

    /** Sets the subscription of a subject at one level (creating it), with its overrides. */
    async subscribe(values: {
      employeeId?: number;
      userId?: number;
      entityId: number | null;
      roleId: number;
      overrides?: { code: string; effect: 'ALLOW' | 'DENY' }[];
    }) {
      const where =
        values.employeeId !== undefined
          ? eq(subscription.employeeId, values.employeeId)
          : and(eq(subscription.userId, values.userId!), values.entityId === null ? isNull(subscription.entityId) : eq(subscription.entityId, values.entityId));
      const [found] = await db.select().from(subscription).where(where);
      let id: number;
      if (found) {
        await db.update(subscription).set({ roleId: values.roleId, updatedAt: new Date() }).where(eq(subscription.id, found.id));
        id = found.id;
      } else {
        const [row] = await db
          .insert(subscription)
          .values({ employeeId: values.employeeId ?? null, userId: values.userId ?? null, entityId: values.entityId, roleId: values.roleId })
          .returning();
        id = row!.id;
      }
      if (values.overrides) await replaceOverrides(db, id, values.overrides);
      return id;
    },
  };
}
export type DirectoryService = ReturnType<typeof createDirectoryService>;
