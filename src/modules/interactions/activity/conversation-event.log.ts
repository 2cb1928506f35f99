/**
 * The one way a change writes the conversation event log (issue 31; docs/api/interactions.md "Conversation
 * event log"): a conversation change (`changeConversations`) carries `log`, which buffers its events and
 * appends them in one statement just before the transaction commits, so the log holds exactly the committed
 * changes (a rolled-back change logs nothing) and a batch of inbound messages costs one insert.
 */
import type { Db } from '../../../db/client.js';
import { runStatementIn } from '../../../db/statement.js';
import type { Publishers } from '../../../platform/transactions/change-events.js';
import { transaction, type PublishingUnitOfWork } from '../../../platform/transactions/transaction.js';
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

interface ConversationEventInput {
  kind: ConversationEventKind;
  conversation: ConversationFacts;
  /** When it happened: a message's platform time, a status change's `status_changed_at`, an assignment's `assigned_at`. */
  at: Date;
  /** Who did it; null (the default) for the customer or the system (routing, a workflow, a snooze ending). */
  actorEmployeeId?: number | null;
  data?: Record<string, unknown>;
}

/** The conversation event log of one change: events buffered in order, written just before it commits. */
interface ConversationEventLog {
  /** Adds `event` to the log; written in the change's transaction, in the order logged. */
  record(event: ConversationEventInput): void;
}

/** The unit of work of a change to conversations: its transaction, its events and its conversation event log. */
export interface ConversationChange extends PublishingUnitOfWork {
  readonly log: ConversationEventLog;
}

/**
 * Runs `work` as one change to conversations (`transaction()` of platform/transactions with `publishers`),
 * its conversation events appended in one statement before the commit; resolves with `work`'s result.
 */
export function changeConversations<T>(db: Db, work: (change: ConversationChange) => Promise<T>, publishers: Publishers): Promise<T> {
  return transaction(db, (unit) => work(withConversationLog(unit)), publishers);
}

/** `unit` with a conversation event log, written by the unit's `beforeCommit` (nothing when it logged nothing). */
function withConversationLog(unit: PublishingUnitOfWork): ConversationChange {
  const buffer: ConversationEventInput[] = [];
  unit.beforeCommit(() => appendEvents(unit.tx, buffer));
  return { ...unit, log: { record: (event) => void buffer.push(event) } };
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
