/**
 * The one way a change writes the conversation event log (issue 31; docs/api/interactions.md "Conversation
 * event log"): `logConversationEvent(tx, ...)` buffers the event on the change's transaction and the buffer
 * is appended in one statement just before that transaction commits, so the log holds exactly the committed
 * changes (a rolled-back change logs nothing) and a batch of inbound messages costs one insert.
 */
import type { Db } from '../../../db/client.js';
import { runStatementIn } from '../../../db/statement.js';
import { beforeCommit } from '../../../platform/transactions/transaction.js';
import type { ChannelTypeCode, ConversationEventKind, ConversationStatus } from '../model/index.js';
import { APPEND_CONVERSATION_EVENTS } from './conversation-event.sql.js';

/** The conversation as the change left it: the event's tenant and attribution (assignee, queue, channel). */
interface ConversationFacts {
  id: number;
  entityId: number;
  channelTypeCode: ChannelTypeCode;
  assignmentStatus: string;
  assignedEmployeeId: number | null;
  queueId: number | null;
}

export interface ConversationEventInput {
  kind: ConversationEventKind;
  conversation: ConversationFacts;
  /** When it happened: a message's platform time, a status change's `status_changed_at`, an assignment's `assigned_at`. */
  at: Date;
  /** Who did it; null (the default) for the customer or the system (routing, a workflow, a snooze ending). */
  actorEmployeeId?: number | null;
  data?: Record<string, unknown>;
}

const buffers = new WeakMap<Db, ConversationEventInput[]>();

/**
 * Adds `event` to the log in the transaction `tx` (opened by `transaction()` of platform/transactions,
 * else it throws). Written just before the commit, in the order logged.
 */
export function logConversationEvent(tx: Db, event: ConversationEventInput): void {
  let buffer = buffers.get(tx);
  if (buffer === undefined) {
    const created: ConversationEventInput[] = [];
    buffers.set(tx, (buffer = created));
    beforeCommit(tx, () => appendEvents(tx, created.splice(0)));
  }
  buffer.push(event);
}

async function appendEvents(tx: Db, events: ConversationEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const col = <T>(f: (e: ConversationEventInput) => T) => events.map(f);
  await runStatementIn(tx, APPEND_CONVERSATION_EVENTS, [
    col((e) => e.conversation.entityId),
    col((e) => e.conversation.id),
    col((e) => e.kind),
    col((e) => e.at.toISOString()),
    col((e) => e.actorEmployeeId ?? null),
    col((e) => (e.conversation.assignmentStatus === 'assigned' ? e.conversation.assignedEmployeeId : null)),
    col((e) => e.conversation.queueId),
    col((e) => e.conversation.channelTypeCode),
    col((e) => JSON.stringify(e.data ?? {})),
  ]);
}

/** What moved a status: an agent (or workflow) action, a customer's message, or a snooze ending on time. */
export type StatusCause = 'manual' | 'inbound_message' | 'snooze_ended';

/** The event kind of a status change from `previous` to `next` (null: no change to log). */
export function statusEventKind(previous: ConversationStatus, next: ConversationStatus, cause: StatusCause): ConversationEventKind | null {
  if (next === 'resolved') return previous === 'resolved' ? null : 'resolved';
  if (next === 'pending') return previous === 'pending' ? null : 'pending';
  if (next === 'snoozed') return 'snoozed';
  if (previous === 'open') return null;
  if (previous === 'resolved') return 'reopened';
  return cause === 'snooze_ended' ? 'woke' : 'resumed';
}
