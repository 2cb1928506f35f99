/**
 * Who sees and who may answer which conversation (issue 30, docs/api/interactions.md "Visibility"):
 * `conversations.view_all` sees every conversation of the entity; without it an agent sees the
 * conversations assigned to them, the unassigned ones waiting in routing queues they are a member of, and
 * those of leads they are the effective seller of (direct or through the group, records' `lead_seller`).
 * `conversations.reply_any` answers any visible conversation; without it only those assigned to them.
 * The system (a workflow, `employeeId` null) sees and answers everything.
 */
import { and, eq, ne, or, sql, type SQL } from 'drizzle-orm';
import { effectiveSellerLeadIds, hasEffectiveSeller } from '../../records/index.js';
import { conversation, routingQueueMember } from '../model/index.js';

export const VIEW_ALL = 'conversations.view_all';
const REPLY_ANY = 'conversations.reply_any';

/** The caller as the visibility rule sees it: an employee with or without the two codes, or the system. */
export interface ConversationViewer {
  entityId: number;
  /** Null for the system (workflows), which is never limited. */
  employeeId: number | null;
  userId: number | null;
  viewAll: boolean;
  replyAny: boolean;
}

/** What callers hand in: a principal (its permissions decide), an actor carrying its viewer, or the system. */
export type ViewerSource =
  | { entityId: number; employeeId: number | null; userId?: number; permissions?: ReadonlySet<string>; viewer?: ConversationViewer | undefined }
  | ConversationViewer;

/**
 * The viewer of `source`: its `viewer` when it carries one, else from its `permissions`; an actor with
 * `employeeId` null is the system (sees and answers all). An employee without permissions sees only
 * their own (fails closed).
 */
export function viewerOf(source: ViewerSource): ConversationViewer {
  if ('viewAll' in source) return source;
  if (source.viewer !== undefined) return source.viewer;
  if (source.employeeId === null) return { entityId: source.entityId, employeeId: null, userId: null, viewAll: true, replyAny: true };
  const codes = source.permissions;
  return {
    entityId: source.entityId,
    employeeId: source.employeeId,
    userId: source.userId ?? null,
    viewAll: codes?.has(VIEW_ALL) ?? false,
    replyAny: codes?.has(REPLY_ANY) ?? false,
  };
}

/**
 * The visibility condition over `conversation` for `viewer` (undefined: no restriction). Every read and
 * write of a conversation by an employee adds it to its WHERE, so another's conversation is simply not
 * found (404). Each branch is an index lookup: the assignee index, the member's queues, the seller's leads.
 */
export function visibleTo(viewer: ConversationViewer): SQL | undefined {
  if (viewer.viewAll || viewer.employeeId === null) return undefined;
  const employeeId = viewer.employeeId;
  return or(
    and(eq(conversation.assignmentStatus, 'assigned'), eq(conversation.assignedEmployeeId, employeeId)),
    and(
      ne(conversation.assignmentStatus, 'assigned'),
      sql`${conversation.queueId} in (select ${routingQueueMember.queueId} from ${routingQueueMember} where ${routingQueueMember.entityId} = ${conversation.entityId} and ${routingQueueMember.employeeId} = ${employeeId})`,
    ),
    hasEffectiveSeller(sql`${conversation.leadId}`, sql`${conversation.entityId}`, employeeId),
  );
}

/**
 * The same rule as `visibleTo`, as its three ways of seeing a conversation, each a condition over
 * `conversation` that one index serves: assigned to the viewer (the assignee index), waiting in one of
 * their queues (the queue index), a lead they are the effective seller of (the lead index, from the
 * seller's few leads). Lists read each way apart, in the list's order, and merge them: an OR over every
 * row of the entity cannot use these indexes (bench/visibility.bench.ts). Undefined: no restriction.
 */
export function visibilityBranches(viewer: ConversationViewer): SQL[] | undefined {
  if (viewer.viewAll || viewer.employeeId === null) return undefined;
  const e = viewer.entityId;
  const employeeId = viewer.employeeId;
  return [
    and(eq(conversation.assignedEmployeeId, employeeId), eq(conversation.assignmentStatus, 'assigned'))!,
    and(
      ne(conversation.assignmentStatus, 'assigned'),
      sql`${conversation.queueId} = any(array(select ${routingQueueMember.queueId} from ${routingQueueMember} where ${routingQueueMember.entityId} = ${e} and ${routingQueueMember.employeeId} = ${employeeId}))`,
    )!,
    sql`${conversation.leadId} = any(${effectiveSellerLeadIds(e, employeeId)})`,
  ];
}

/** Whether `viewer` may answer `c` as it is (without claiming it). */
export function mayAnswer(viewer: ConversationViewer, c: { assignmentStatus: string; assignedEmployeeId: number | null }): boolean {
  if (viewer.replyAny || viewer.employeeId === null) return true;
  return c.assignmentStatus === 'assigned' && c.assignedEmployeeId === viewer.employeeId;
}
