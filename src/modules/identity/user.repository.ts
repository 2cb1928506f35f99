/** Drizzle queries of users (`app_user`). */
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { appUser } from './user.table.js';

export type UserRow = typeof appUser.$inferSelect;

/** The user with this e-mail (compared lower-cased), with the password hash. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(appUser).where(eq(appUser.email, email.trim().toLowerCase())).limit(1);
  return row;
}

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(appUser).where(eq(appUser.id, id)).limit(1);
  return row;
}

export async function setPasswordHash(db: Db, userId: number, passwordHash: string): Promise<void> {
  await db.update(appUser).set({ passwordHash, updatedAt: new Date() }).where(eq(appUser.id, userId));
}
