import { and, asc, count, eq, ilike, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { likePattern, type PageRequest } from '../../platform/http/pagination.js';
import { crmGroup } from './group.table.js';

export type GroupRow = typeof crmGroup.$inferSelect;

function listWhere(entityId: number, search: string | undefined): SQL | undefined {
  return and(eq(crmGroup.entityId, entityId), search ? ilike(crmGroup.name, likePattern(search)) : undefined);
}

export async function listGroups(db: Db, entityId: number, filter: PageRequest & { search?: string | undefined }) {
  const where = listWhere(entityId, filter.search);
  const [rows, totals] = await Promise.all([
    db.select().from(crmGroup).where(where).orderBy(asc(crmGroup.name), asc(crmGroup.id)).limit(filter.limit).offset(filter.offset),
    db.select({ n: count() }).from(crmGroup).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function findGroup(db: Db, entityId: number, id: number): Promise<GroupRow | undefined> {
  const rows = await db
    .select()
    .from(crmGroup)
    .where(and(eq(crmGroup.entityId, entityId), eq(crmGroup.id, id)));
  return rows[0];
}

export async function insertGroup(db: Db, entityId: number, values: { name: string }): Promise<GroupRow> {
  const rows = await db.insert(crmGroup).values({ entityId, name: values.name }).returning();
  return rows[0]!;
}

export async function updateGroup(db: Db, entityId: number, id: number, values: { name?: string }): Promise<GroupRow | undefined> {
  const rows = await db
    .update(crmGroup)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(crmGroup.entityId, entityId), eq(crmGroup.id, id)))
    .returning();
  return rows[0];
}
