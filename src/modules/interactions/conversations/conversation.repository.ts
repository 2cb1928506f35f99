/** Drizzle queries of the conversations API; every function is scoped by entity. */
import { and, desc, eq, gt, ilike, inArray, isNotNull, isNull, lt, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { conversation } from '../model/index.js';
import { message, routingQueueMember } from '../model/index.js';
import type { ConversationRow, MessageRow } from './conversation.mapper.js';
import type { ChannelTypeCode, ConversationStatus } from '../model/index.js';
import { visibilityBranches, visibleTo, type ConversationViewer } from './conversation-visibility.js';

/**
 * What narrows an inbox read (list or tab counts). `viewer` is who reads (the `me` of `assignee` and the
 * `mine` tab); `tab` is the list's older `filter` parameter, kept beside `assignee`.
 */
export interface InboxConditions {
  /** Who reads: their entity, what they may see, and the `me` of `assignee` and of the `mine` tab. */
  viewer: ConversationViewer;
  tab?: 'mine' | 'unassigned' | 'all' | undefined;
  status?: readonly ConversationStatus[] | undefined;
  /** `me`, `none` (unassigned or queued) or an employee id. */
  assignee?: 'me' | 'none' | number | undefined;
  queueId?: number | undefined;
  channelTypeCode?: ChannelTypeCode | undefined;
  followUp?: boolean | undefined;
  unread?: boolean | undefined;
  q?: string | undefined;
  /** Any of these labels (the conversation's own, its contact's or its lead's). */
  labelAny?: readonly number[] | undefined;
  /** All of these labels, from whichever source. */
  labelAll?: readonly number[] | undefined;
}

export interface InboxFilter extends InboxConditions {
  /**
   * Keyset: conversations strictly after the one whose last activity is `activityUs` (epoch microseconds,
   * null when it has none) and id is `id`, in (last_message_at desc nulls first, id desc) order.
   */
  after?: { activityUs: number | null; id: number } | undefined;
  limit: number;
}

/** The exact last activity in epoch microseconds (a double holds them exactly), for the cursor. */
const activityUs = sql<number | null>`floor(extract(epoch from ${conversation.lastMessageAt}) * 1000000)`;
const assignedTo = (employeeId: number | null) =>
  employeeId === null ? sql`false` : and(eq(conversation.assignedEmployeeId, employeeId), eq(conversation.assignmentStatus, 'assigned'));
const notAssigned = sql`${conversation.assignmentStatus} <> 'assigned'`;
/** An `integer[]` value (ids from a validated request). */
const intArray = (ids: readonly number[]) => sql`${`{${ids.join(',')}}`}::integer[]`;

/**
 * The one WHERE clause of the inbox but who may see what: the list and the tab counts both build theirs
 * here, so a condition added here holds for both; each then adds the viewer's visibility
 * (`visibilityBranches`, conversation-visibility.ts) the way its query reads best.
 * Labels match the conversation's own and its contact's and lead's (`label_ids`, kept by migration 0030's triggers).
 * Text search is a case-insensitive substring of the sender's name, the chat id (the number) or the last message's preview (docs/decisions.md "Inbox search").
 */
function inboxConditions(f: InboxConditions): SQL {
  const conds: (SQL | undefined)[] = [eq(conversation.entityId, f.viewer.entityId)];
  if (f.tab === 'mine') conds.push(assignedTo(f.viewer.employeeId));
  if (f.tab === 'unassigned') conds.push(notAssigned);
  if (f.status !== undefined) conds.push(f.status.length === 1 ? eq(conversation.status, f.status[0]!) : inArray(conversation.status, [...f.status]));
  if (f.assignee === 'me') conds.push(assignedTo(f.viewer.employeeId));
  else if (f.assignee === 'none') conds.push(notAssigned);
  else if (f.assignee !== undefined) conds.push(assignedTo(f.assignee));
  if (f.queueId !== undefined) conds.push(eq(conversation.queueId, f.queueId));
  if (f.channelTypeCode !== undefined) conds.push(eq(conversation.channelTypeCode, f.channelTypeCode));
  if (f.followUp !== undefined) conds.push(eq(conversation.followUp, f.followUp));
  if (f.unread === true) conds.push(gt(conversation.unreadCount, 0));
  if (f.unread === false) conds.push(eq(conversation.unreadCount, 0));
  if (f.q !== undefined) {
    const pattern = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conds.push(or(ilike(conversation.senderName, pattern), ilike(conversation.externalChatId, pattern), ilike(conversation.lastMessagePreview, pattern)));
  }
  // `<> '{}'` names the partial index of labelled conversations (conversation_label_ids_idx) to the planner.
  if (f.labelAny !== undefined || f.labelAll !== undefined) conds.push(sql`${conversation.labelIds} <> '{}'::integer[]`);
  if (f.labelAny !== undefined) conds.push(sql`${conversation.labelIds} && ${intArray(f.labelAny)}`);
  if (f.labelAll !== undefined) conds.push(sql`${conversation.labelIds} @> ${intArray(f.labelAll)}`);
  return and(...conds)!;
}

/**
 * One page of the inbox, newest activity first: `(last_message_at desc nulls first, id desc)`, the order of
 * the `(entity_id[, status], last_message_at, id)` indexes read backwards, so a page reads only its rows.
 * Each row comes with its last activity in epoch microseconds (the cursor's key).
 */
export async function listConversations(db: Db, f: InboxFilter): Promise<{ row: ConversationRow; activityUs: number | null }[]> {
  let where = inboxConditions(f);
  if (f.after) {
    const { activityUs: us, id } = f.after;
    const at = sql`(timestamptz 'epoch' + ${us}::float8 * interval '1 microsecond')`;
    where = and(
      where,
      us === null
        ? or(isNotNull(conversation.lastMessageAt), and(isNull(conversation.lastMessageAt), lt(conversation.id, id)))
        : or(lt(conversation.lastMessageAt, at), and(eq(conversation.lastMessageAt, at), lt(conversation.id, id))),
    )!;
  }
  const order = [sql`${conversation.lastMessageAt} desc nulls first`, desc(conversation.id)];
  const branches = visibilityBranches(f.viewer);
  if (branches) {
    // A restricted viewer's page: the first `limit` of each way of seeing, each read on its own index in the
    // list's order, merged; a page then costs a few index ranges, not the viewer's whole visible set.
    // (A subquery embedded in `sql` is parenthesized by Drizzle.)
    const pages = branches.map(
      (b) =>
        sql`${db
          .select({ id: conversation.id })
          .from(conversation)
          .where(and(where, b))
          .orderBy(...order)
          .limit(f.limit)}`,
    );
    where = and(where, sql`${conversation.id} in (${sql.join(pages, sql` union all `)})`)!;
  }
  const rows = await db
    .select({ row: conversation, activityUs })
    .from(conversation)
    .where(where)
    .orderBy(...order)
    .limit(f.limit);
  return rows.map((r) => ({ row: r.row, activityUs: r.activityUs === null ? null : Number(r.activityUs) }));
}

/** Conversations per status of the tabs `mine` (assigned to the viewer), `unassigned` (unassigned or queued) and `all`, under `f`. */
export async function countConversations(db: Db, f: InboxConditions): Promise<{ status: ConversationStatus; mine: number; unassigned: number; all: number }[]> {
  return db
    .select({
      // In `sql`: the source may be the union named `conversation` rather than the table itself.
      status: sql<ConversationStatus>`${conversation.status}`,
      mine: sql<number>`(count(*) filter (where ${assignedTo(f.viewer.employeeId)}))::int`,
      unassigned: sql<number>`(count(*) filter (where ${notAssigned}))::int`,
      all: sql<number>`count(*)::int`,
    })
    .from(visibleInbox(db, f) ?? conversation)
    .where(visibilityBranches(f.viewer) ? undefined : inboxConditions(f))
    .groupBy(conversation.status);
}

/**
 * The conversations of the inbox under `f` that a restricted viewer sees, as a source named `conversation`
 * with the columns the tab counts read: the viewer's three ways of seeing made disjoint (the first two are:
 * assigned vs not; a lead's conversation seen another way already is left to that way), so each is counted
 * once, each read from its own index alone. Undefined for a viewer who sees all (the table itself).
 */
function visibleInbox(db: Db, f: InboxConditions): SQL | undefined {
  const branches = visibilityBranches(f.viewer);
  if (!branches) return undefined;
  const [assigned, queued, leads] = branches as [SQL, SQL, SQL];
  const where = inboxConditions(f);
  const columns = { status: conversation.status, assignmentStatus: conversation.assignmentStatus, assignedEmployeeId: conversation.assignedEmployeeId };
  // `is not true`: a condition that is null (no queue) must not hide the row.
  const disjoint = [assigned, queued, sql`${leads} and (${assigned}) is not true and (${queued}) is not true`];
  const ways = disjoint.map((b) => sql`${db.select(columns).from(conversation).where(and(where, b))}`);
  return sql`(${sql.join(ways, sql` union all `)}) as ${conversation}`;
}

/** Conversation `id` of the entity; with `viewer`, only when it may see it. */
export async function getConversation(db: Db, entityId: number, id: number, lock = false, viewer?: ConversationViewer): Promise<ConversationRow | undefined> {
  const q = db
    .select()
    .from(conversation)
    .where(and(eq(conversation.entityId, entityId), eq(conversation.id, id), viewer ? visibleTo(viewer) : undefined));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

export async function updateConversation(
  db: Db,
  entityId: number,
  id: number,
  values: Partial<typeof conversation.$inferInsert>,
  viewer?: ConversationViewer,
): Promise<ConversationRow | undefined> {
  const [row] = await db
    .update(conversation)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(conversation.entityId, entityId), eq(conversation.id, id), viewer ? visibleTo(viewer) : undefined))
    .returning();
  return row;
}

/**
 * Assigns conversation `id` to `viewer`'s employee if, and only if, it is still unassigned and visible to
 * them: one conditional UPDATE, so of two agents racing exactly one gets the row back (the other, undefined).
 */
export async function claimConversation(db: Db, viewer: ConversationViewer & { employeeId: number }, id: number): Promise<ConversationRow | undefined> {
  const now = new Date();
  const [row] = await db
    .update(conversation)
    .set({ assignmentStatus: 'assigned', assignedEmployeeId: viewer.employeeId, assignedAt: now, queuedAt: null, updatedAt: now })
    .where(and(eq(conversation.entityId, viewer.entityId), eq(conversation.id, id), ne(conversation.assignmentStatus, 'assigned'), visibleTo(viewer)))
    .returning();
  return row;
}

/** Newest first; keyset after (occurred_at_ms, id). */
export async function history(db: Db, entityId: number, conversationId: number, limit: number, before?: { ms: number; id: number }): Promise<MessageRow[]> {
  return db
    .select()
    .from(message)
    .where(
      and(
        eq(message.entityId, entityId),
        eq(message.conversationId, conversationId),
        before ? or(lt(message.occurredAtMs, before.ms), and(eq(message.occurredAtMs, before.ms), lt(message.id, before.id))) : undefined,
      ),
    )
    .orderBy(desc(message.occurredAtMs), desc(message.id))
    .limit(limit);
}

/** Up to `limit` messages of the conversation newer than (ms, id), oldest first (the history's `around`). */
export async function historyNewer(db: Db, entityId: number, conversationId: number, limit: number, after: { ms: number; id: number }): Promise<MessageRow[]> {
  return db
    .select()
    .from(message)
    .where(
      and(
        eq(message.entityId, entityId),
        eq(message.conversationId, conversationId),
        or(gt(message.occurredAtMs, after.ms), and(eq(message.occurredAtMs, after.ms), gt(message.id, after.id))),
      ),
    )
    .orderBy(message.occurredAtMs, message.id)
    .limit(limit);
}

/** The history key of message `id` when it belongs to the conversation. */
export async function messageKey(db: Db, entityId: number, conversationId: number, id: number): Promise<{ ms: number; id: number } | undefined> {
  const [row] = await db
    .select({ ms: message.occurredAtMs, id: message.id })
    .from(message)
    .where(and(eq(message.entityId, entityId), eq(message.conversationId, conversationId), eq(message.id, id)));
  return row;
}

/** How an event names its conversation: directly, by the chat of an inbound message, or by the contact (its latest conversation). */
export type ConversationRef = { conversationId: number } | { entityChannelAccountId: number; externalChatId: string } | { contactId: number };

/** The conversation `ref` names in the entity (for a contact: the one with the latest message), with its label ids (ascending). */
export async function latestConversationOf(db: Db, entityId: number, ref: ConversationRef): Promise<{ id: number; labelIds: number[] } | undefined> {
  const where =
    'conversationId' in ref
      ? and(eq(conversation.entityId, entityId), eq(conversation.id, ref.conversationId))
      : 'externalChatId' in ref
        ? and(
            eq(conversation.entityId, entityId),
            eq(conversation.entityChannelAccountId, ref.entityChannelAccountId),
            eq(conversation.externalChatId, ref.externalChatId),
          )
        : and(eq(conversation.entityId, entityId), eq(conversation.contactId, ref.contactId));
  const [row] = await db
    .select({ id: conversation.id, labelIds: conversation.labelIds })
    .from(conversation)
    .where(where)
    .orderBy(sql`${conversation.lastMessageAt} desc nulls last`, desc(conversation.id))
    .limit(1);
  return row;
}

/** Whether a message of a conversation `viewer` sees carries platform media `mediaId` (the media proxy's tenant and visibility check). */
export async function viewerHasMedia(db: Db, viewer: ConversationViewer, mediaId: string): Promise<boolean> {
  const visible = visibleTo(viewer);
  const [row] = visible
    ? await db
        .select({ id: message.id })
        .from(message)
        .innerJoin(conversation, eq(conversation.id, message.conversationId))
        .where(and(eq(message.entityId, viewer.entityId), eq(message.mediaId, mediaId), visible))
        .limit(1)
    : await db
        .select({ id: message.id })
        .from(message)
        .where(and(eq(message.entityId, viewer.entityId), eq(message.mediaId, mediaId)))
        .limit(1);
  return row !== undefined;
}

/**
 * Opens conversation `id` when it is still snoozed until exactly `until` (a snooze moved or ended since
 * makes this a no-op: undefined). One conditional update, so two instances running the wake-up of one
 * snooze change it once.
 */
export async function wakeSnoozed(db: Db, id: number, until: Date): Promise<ConversationRow | undefined> {
  const [row] = await db
    .update(conversation)
    .set({ status: 'open', snoozedUntil: null, statusChangedAt: new Date(), statusChangedBy: null, updatedAt: new Date() })
    .where(and(eq(conversation.id, id), eq(conversation.status, 'snoozed'), eq(conversation.snoozedUntil, until)))
    .returning();
  return row;
}

/** The routing queues each of `employeeIds` is a member of in the entity, keyed by employee id. */
export async function queuesOfMembers(db: Db, entityId: number, employeeIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(employeeIds.map((id) => [id, []]));
  if (employeeIds.length === 0) return out;
  const rows = await db
    .select({ employeeId: routingQueueMember.employeeId, queueId: routingQueueMember.queueId })
    .from(routingQueueMember)
    .where(and(eq(routingQueueMember.entityId, entityId), inArray(routingQueueMember.employeeId, [...employeeIds])));
  for (const r of rows) out.get(r.employeeId)?.push(r.queueId);
  return out;
}

/** Of `ids` (conversations) and `chatIds` (external chat ids), those `viewer` sees at least one conversation of. */
export async function visibleAmong(
  db: Db,
  viewer: ConversationViewer,
  ids: readonly number[],
  chatIds: readonly string[],
): Promise<{ conversationIds: number[]; externalChatIds: string[] }> {
  const visible = visibleTo(viewer);
  const [byId, byChat] = await Promise.all([
    ids.length === 0
      ? []
      : db
          .select({ id: conversation.id })
          .from(conversation)
          .where(and(eq(conversation.entityId, viewer.entityId), inArray(conversation.id, [...ids]), visible)),
    chatIds.length === 0
      ? []
      : db
          .selectDistinct({ chat: conversation.externalChatId })
          .from(conversation)
          .where(and(eq(conversation.entityId, viewer.entityId), inArray(conversation.externalChatId, [...chatIds]), visible)),
  ]);
  return { conversationIds: byId.map((r) => r.id), externalChatIds: byChat.map((r) => r.chat) };
}
