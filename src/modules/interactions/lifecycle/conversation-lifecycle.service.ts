/**
 * Resolving, reopening, marking pending and snoozing conversations (issue 30; the transition table is in
 * conversation-lifecycle.ts). Each change locks the conversation, checks the transition, records who made
 * it and when, and publishes `interaction.conversation.status_changed` (and `conversation.resolved` /
 * `conversation.reopened`) through its transaction. A snooze writes, in the same transaction, a durable job
 * that starts at `until` on whichever instance polls first; the job opens the conversation only when it is
 * still snoozed until that same instant, so a moved or ended snooze leaves the old job nothing to do.
 */
import type { Db } from '../../../db/client.js';
import type { EventBus } from '../../../platform/events/bus.js';
import type { Queue } from '../../../platform/queue/queue.js';
import type { RealtimeEmitter } from '../../../platform/realtime/events.js';
import { notFound } from '../../../platform/errors.js';
import { changeConversations } from '../activity/index.js';
import type { ConversationStatus } from '../model/index.js';
import { ACTION_TARGET, assertSnoozeUntil, assertTransition, type LifecycleAction } from './conversation-lifecycle.js';
import {
  getConversation,
  toConversationResponse,
  updateConversation,
  viewerOf,
  wakeSnoozed,
  type Actor,
  type ConversationResponse,
} from '../conversations/index.js';
import { announceStatusChange } from '../events/index.js';
import type { SlaClocks } from '../service-levels/index.js';

const WAKE_QUEUE = 'interactions.conversation.wake';

declare module '../../../platform/queue/queue.js' {
  interface JobMap {
    /** Opens a snoozed conversation at `until` (ISO 8601) if it is still snoozed until then. */
    'interactions.conversation.wake': { conversationId: number; until: string };
  }
}

export interface ConversationLifecycle {
  /**
   * Applies `action` to conversation `id` of the actor's entity (`until` for `snooze`). Errors: 404 for
   * another entity's conversation or one the actor may not see, 409 `status_transition_not_allowed`, 422 `snooze_until_invalid`.
   */
  change(p: Actor, id: number, action: LifecycleAction, until?: Date): Promise<ConversationResponse>;
  /** Creates the wake-up queue; runs its worker when `workers`. */
  start(options: { workers: boolean }): Promise<void>;
}

export function createConversationLifecycle(deps: {
  db: Db;
  queue: Queue;
  events: EventBus;
  realtime: RealtimeEmitter;
  /** The SLA clocks, moved in the change's transaction (pause, resume, stop, a new cycle). */
  sla: SlaClocks;
  now?: () => Date;
}): ConversationLifecycle {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    async change(p, id, action, until) {
      const at = now();
      if (action === 'snooze') assertSnoozeUntil(until!, at);
      const row = await changeConversations(
        db,
        async (change) => {
          const { tx } = change;
          const current = await getConversation(tx, p.entityId, id, true, viewerOf(p));
          if (!current) throw notFound('conversation', id);
          assertTransition(current.status, action);
          const status: ConversationStatus = ACTION_TARGET[action];
          const changed = (await updateConversation(tx, p.entityId, id, {
            status,
            snoozedUntil: action === 'snooze' ? until! : null,
            statusChangedAt: at,
            statusChangedBy: p.employeeId,
          }))!;
          const updated = await deps.sla.statusChanged(change, changed, current.status, at);
          if (action === 'snooze') {
            // The key names the instant: snoozing again until the same instant adds no second job.
            await deps.queue.enqueue(
              change,
              WAKE_QUEUE,
              { conversationId: id, until: until!.toISOString() },
              { startAfter: until!, singletonKey: `wake:${id}:${until!.getTime()}` },
            );
          }
          announceStatusChange(change, updated, current.status, p.employeeId, 'manual');
          return updated;
        },
        deps,
      );
      return toConversationResponse(row);
    },
    async start({ workers }) {
      await deps.queue.define(WAKE_QUEUE, { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 60, policy: 'short' });
      if (!workers) return;
      await deps.queue.work(
        WAKE_QUEUE,
        async ({ conversationId, until }) => {
          await changeConversations(
            db,
            async (change) => {
              const woken = await wakeSnoozed(change.tx, conversationId, new Date(until));
              if (woken) announceStatusChange(change, await deps.sla.statusChanged(change, woken, 'snoozed', now()), 'snoozed', null, 'snooze_ended');
            },
            deps,
          );
        },
        { pollingIntervalSeconds: 1, concurrency: 2 },
      );
    },
  };
}
