/** The only reader and writer of `conversation_label` (issue 49). */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { conversationLabel } from '../model/index.js';

/** Puts `labelIds` on the conversation; returns the ones it did not carry yet. */
export async function addConversationLabels(
  db: Db,
  entityId: number,
  conversationId: number,
  labelIds: readonly number[],
  by: number | null,
): Promise<number[]> {
  const rows = await db
    .insert(conversationLabel)
    .values(labelIds.map((labelId) => ({ conversationId, labelId, entityId, createdByEmployeeId: by })))
    .onConflictDoNothing()
    .returning({ labelId: conversationLabel.labelId });
  return rows.map((r) => r.labelId).sort((a, b) => a - b);
}

/** Takes `labelIds` off the conversation itself; returns how many it carried. */
export async function removeConversationLabels(db: Db, entityId: number, conversationId: number, labelIds: readonly number[]): Promise<number> {
  const rows = await db
    .delete(conversationLabel)
    .where(
      and(eq(conversationLabel.entityId, entityId), eq(conversationLabel.conversationId, conversationId), inArray(conversationLabel.labelId, [...labelIds])),
    )
    .returning({ labelId: conversationLabel.labelId });
  return rows.length;
}
