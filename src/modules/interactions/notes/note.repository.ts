/** The only reader and writer of `conversation_note` outside the history read (issue 50); every function is scoped by entity. */
import { and, desc, eq, lt, or } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { conversationNote } from '../model/index.js';
import { messageHistory, type HistoryItem, type NoteRow } from '../conversations/index.js';

export type NewNote = Omit<typeof conversationNote.$inferInsert, 'id' | 'createdAt' | 'editedAt'>;

/** Inserts `values`; with an idempotency key already used in the entity, returns the note written first (`created` false). */
export async function insertNote(db: Db, values: NewNote): Promise<{ row: NoteRow; created: boolean }> {
  const [row] = await db.insert(conversationNote).values(values).onConflictDoNothing().returning();
  if (row) return { row, created: true };
  const [first] = await db
    .select()
    .from(conversationNote)
    .where(and(eq(conversationNote.entityId, values.entityId), eq(conversationNote.idempotencyKey, values.idempotencyKey!)));
  return { row: first!, created: false };
}

/** Note `id` of conversation `conversationId` in the entity (locked with `lock`). */
export async function findNote(db: Db, entityId: number, conversationId: number, id: number, lock = false): Promise<NoteRow | undefined> {
  const q = db
    .select()
    .from(conversationNote)
    .where(and(eq(conversationNote.entityId, entityId), eq(conversationNote.conversationId, conversationId), eq(conversationNote.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

export async function updateNote(db: Db, id: number, values: Partial<Pick<NoteRow, 'body' | 'mentionedEmployeeIds' | 'attachmentIds'>>): Promise<NoteRow> {
  const [row] = await db
    .update(conversationNote)
    .set({ ...values, editedAt: new Date() })
    .where(eq(conversationNote.id, id))
    .returning();
  return row!;
}

export async function deleteNote(db: Db, id: number): Promise<void> {
  await db.delete(conversationNote).where(eq(conversationNote.id, id));
}

/** The conversation's notes, newest first, after `before` (the previous page's last). */
export async function listNotes(db: Db, entityId: number, conversationId: number, limit: number, before?: { ms: number; id: number }): Promise<NoteRow[]> {
  return db
    .select()
    .from(conversationNote)
    .where(
      and(
        eq(conversationNote.entityId, entityId),
        eq(conversationNote.conversationId, conversationId),
        before
          ? or(lt(conversationNote.occurredAtMs, before.ms), and(eq(conversationNote.occurredAtMs, before.ms), lt(conversationNote.id, before.id)))
          : undefined,
      ),
    )
    .orderBy(desc(conversationNote.occurredAtMs), desc(conversationNote.id))
    .limit(limit);
}

/**
 * The conversation's messages and private notes together (issue 50), newest first: by time (ms), then by
 * `rank`, which keeps messages and notes of one millisecond in a stable order, each table read by its
 * (conversation, time, id) index. `before` is the last item of the previous page.
 */
export async function historyWithNotes(
  db: Db,
  entityId: number,
  conversationId: number,
  limit: number,
  before?: { ms: number; rank: number },
): Promise<HistoryItem[]> {
  // rank < R: a message's 2·id < R ⇔ id < R/2; a note's 2·id + 1 < R ⇔ id < (R − 1)/2.
  const [messages, notes] = await Promise.all([
    messageHistory(db, entityId, conversationId, limit, before && { ms: before.ms, id: Math.ceil(before.rank / 2) }),
    listNotes(db, entityId, conversationId, limit, before && { ms: before.ms, id: Math.ceil((before.rank - 1) / 2) }),
  ]);
  const items: HistoryItem[] = [
    ...messages.map((row) => ({ kind: 'message' as const, row, ms: row.occurredAtMs, rank: row.id * 2 })),
    ...notes.map((row) => ({ kind: 'note' as const, row, ms: row.occurredAtMs, rank: row.id * 2 + 1 })),
  ];
  return items.sort((a, b) => b.ms - a.ms || b.rank - a.rank).slice(0, limit);
}
