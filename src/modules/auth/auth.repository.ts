import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appUser } from '../admin/user.table.js';
import { employee } from '../admin/employee.table.js';
import { entity } from '../admin/entity.table.js';

/** The user with this e-mail (compared lower-cased), with the password hash. */
export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(appUser).where(eq(appUser.email, email.trim().toLowerCase())).limit(1);
  return row;
}

export async function findUserById(db: Db, id: number) {
  const [row] = await db.select().from(appUser).where(eq(appUser.id, id)).limit(1);
  return row;
}

/** Active memberships of a user: one row per entity with its employee record. */
export async function listMemberships(db: Db, userId: number) {
  return db
    .select({ entityId: entity.id, name: entity.name, logoUrl: entity.logoUrl, employeeId: employee.id })
    .from(employee)
    .innerJoin(entity, eq(entity.id, employee.entityId))
    .where(and(eq(employee.userId, userId), eq(employee.isActive, true)))
    .orderBy(asc(entity.id));
}

export async function setPasswordHash(db: Db, userId: number, passwordHash: string): Promise<void> {
  await db.update(appUser).set({ passwordHash, updatedAt: new Date() }).where(eq(appUser.id, userId));
}
