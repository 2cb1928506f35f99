/**
 * Labels on a conversation itself (issue 49). Whoever may see a conversation may label it (docs/decisions.md
 * "Who labels what"). Each change locks the conversation, writes its links (migration 0030's triggers then
 * rewrite `label_ids` and `labels`), and announces it after the commit: `interaction.conversation.updated` to the
 * sockets and, for labels added, `conversation.labeled` on the bus. A label the conversation shows from its
 * contact or lead is taken off there (records), not here.
 * Errors: 404 `not_found` for a conversation the actor may not see (another entity's too) or a label that is not
 * the entity's.
 */
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import { notFound } from '../../../platform/errors.js';
import type { Labels } from '../../labels/index.js';
import { changeConversations } from '../activity/index.js';
import { getConversation, toConversationResponse, viewerOf, type Actor, type ConversationResponse } from '../conversations/index.js';
import { announceLabels, type EventOrigin } from '../events/index.js';
import * as repo from './conversation-label.repository.js';

export interface ConversationLabels {
  /** Puts `labelIds` on conversation `id`; a label it already carries stays as it was. */
  add(p: Actor, id: number, labelIds: readonly number[], origin?: EventOrigin): Promise<ConversationResponse>;
  /** Takes `labelIds` off conversation `id` itself (those it does not carry are nothing to do). */
  remove(p: Actor, id: number, labelIds: readonly number[], origin?: EventOrigin): Promise<ConversationResponse>;
}

export function createConversationLabels(deps: {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  labels: Pick<Labels, 'assertLabels'>;
}): ConversationLabels {
  const { db } = deps;
  async function change(p: Actor, id: number, labelIds: readonly number[], write: 'add' | 'remove', origin?: EventOrigin): Promise<ConversationResponse> {
    await deps.labels.assertLabels(p.entityId, labelIds);
    const row = await changeConversations(
      db,
      async (change) => {
        const { tx } = change;
        if (!(await getConversation(tx, p.entityId, id, true, viewerOf(p)))) throw notFound('conversation', id);
        const added = write === 'add' ? await repo.addConversationLabels(tx, p.entityId, id, labelIds, p.employeeId) : [];
        const removed = write === 'remove' ? await repo.removeConversationLabels(tx, p.entityId, id, labelIds) : 0;
        const after = (await getConversation(tx, p.entityId, id))!;
        if (added.length > 0 || removed > 0) announceLabels(change, after, added, p.employeeId, origin);
        return after;
      },
      deps,
    );
    return toConversationResponse(row);
  }
  return {
    add: (p, id, labelIds, origin) => change(p, id, labelIds, 'add', origin),
    remove: (p, id, labelIds, origin) => change(p, id, labelIds, 'remove', origin),
  };
}
