/** The only reader and writer of `audit_entry`, `audit_chain_head` and `audit_retention` (issue 54). */
import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runStatementIn } from '../../db/statement.js';
import { chainBreaks, chainsWithRetention, countEntries, pruneChain } from './audit.sql.js';
import { auditEntry, auditRetention } from './audit.table.js';

export type AuditEntryRow = typeof auditEntry.$inferSelect;
export type NewAuditEntry = Omit<typeof auditEntry.$inferInsert, 'id' | 'seq' | 'prevHash' | 'hash'>;

/** Appends one entry (the trigger numbers, links and hashes it) in `db`, the caller's transaction when inside one. */
export async function appendEntry(db: Db, values: NewAuditEntry): Promise<void> {
  await db.insert(auditEntry).values(values);
}

export interface EntryFilter {
  entityId: number;
  actorKind?: string | undefined;
  actorUserId?: number | undefined;
  actorEmployeeId?: number | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

function where(f: EntryFilter): SQL {
  const conditions: (SQL | undefined)[] = [
    eq(auditEntry.entityId, f.entityId),
    f.actorKind !== undefined ? eq(auditEntry.actorKind, f.actorKind) : undefined,
    f.actorUserId !== undefined ? eq(auditEntry.actorUserId, f.actorUserId) : undefined,
    f.actorEmployeeId !== undefined ? eq(auditEntry.actorEmployeeId, f.actorEmployeeId) : undefined,
    // `role.` matches every action of roles; `role.update` that one.
    f.action !== undefined ? (f.action.endsWith('.') ? sql`starts_with(${auditEntry.action}, ${f.action})` : eq(auditEntry.action, f.action)) : undefined,
    f.targetType !== undefined ? eq(auditEntry.targetType, f.targetType) : undefined,
    f.targetId !== undefined ? eq(auditEntry.targetId, f.targetId) : undefined,
    f.from !== undefined ? gte(auditEntry.occurredAt, f.from) : undefined,
    f.to !== undefined ? lt(auditEntry.occurredAt, f.to) : undefined,
  ];
  return and(...conditions)!;
}

/** A page of the entity's entries, newest first, and how many match. */
export async function listEntries(db: Db, f: EntryFilter, page: { limit: number; offset: number }): Promise<{ rows: AuditEntryRow[]; total: number }> {
  const condition = where(f);
  const [rows, [count]] = await Promise.all([
    db.select().from(auditEntry).where(condition).orderBy(desc(auditEntry.occurredAt), desc(auditEntry.id)).limit(page.limit).offset(page.offset),
    db
      .select({ n: sql<number>`count(*)::integer` })
      .from(auditEntry)
      .where(condition),
  ]);
  return { rows, total: count?.n ?? 0 };
}

/** The matching entries, newest first, `batch` at a time (for the CSV export), at most `max`. */
export async function* entriesInBatches(db: Db, f: EntryFilter, batch: number, max: number): AsyncGenerator<AuditEntryRow[]> {
  const condition = where(f);
  for (let offset = 0; offset < max; offset += batch) {
    const rows = await db
      .select()
      .from(auditEntry)
      .where(condition)
      .orderBy(desc(auditEntry.occurredAt), desc(auditEntry.id))
      .limit(Math.min(batch, max - offset))
      .offset(offset);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
  }
}

export interface ChainBreak {
  chainKey: number;
  seq: number;
  entryId: number | null;
  problem: 'altered' | 'missing' | 'missing_tail';
}

/** The breaks of every chain, or of `chainKey`'s, and how many entries were checked. */
export async function findChainBreaks(db: Db, chainKey: number | null): Promise<{ checked: number; breaks: ChainBreak[] }> {
  const rows = await runStatementIn<{ chain_key: number; seq: string | number; id: string | number | null; problem: ChainBreak['problem'] }>(db, chainBreaks, [
    chainKey,
  ]);
  const [count] = await runStatementIn<{ n: string | number }>(db, countEntries, [chainKey]);
  return {
    checked: Number(count?.n ?? 0),
    breaks: rows.map((r) => ({ chainKey: r.chain_key, seq: Number(r.seq), entryId: r.id === null ? null : Number(r.id), problem: r.problem })),
  };
}

/** Every chain and its retention in days (`defaultDays` where the entity set none). */
export async function chainRetentions(db: Db, defaultDays: number): Promise<{ chainKey: number; days: number }[]> {
  const rows = await runStatementIn<{ chain_key: number; days: number }>(db, chainsWithRetention, [defaultDays]);
  return rows.map((r) => ({ chainKey: r.chain_key, days: r.days }));
}

/** Removes the chain's entries up to the last one before `before` (`audit_prune`); how many went. */
export async function prune(db: Db, chainKey: number, before: Date): Promise<number> {
  const [row] = await runStatementIn<{ removed: number }>(db, pruneChain, [chainKey, before]);
  return row?.removed ?? 0;
}

export async function retentionOf(db: Db, entityId: number): Promise<number | undefined> {
  const [row] = await db.select({ days: auditRetention.days }).from(auditRetention).where(eq(auditRetention.entityId, entityId));
  return row?.days;
}

export async function setRetention(db: Db, entityId: number, days: number): Promise<void> {
  await db.insert(auditRetention).values({ entityId, days }).onConflictDoUpdate({ target: auditRetention.entityId, set: { days } });
}
