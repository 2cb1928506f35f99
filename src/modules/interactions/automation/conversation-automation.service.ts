/**
 * What automations (the workflows module) do to conversations, by entity id rather than by a signed-in
 * employee: find the conversation an event is about, send into it, assign it, note on it, mark its
 * follow-up, read and change its labels. Sends go through the same checks and lifecycle as an agent's (outbound.service.ts) and
 * carry the workflow's origin, so the `message.outbound` they cause can stop a loop.
 */
import type { Db } from '../../../db/client.js';
import type { EventOrigin } from '../events/index.js';
import type { OutboundService } from '../outbound/index.js';
import type { ConversationService } from '../conversations/index.js';
import type { AssignmentService } from '../routing/index.js';
import type { ConversationLabels } from '../conversation-labels/index.js';
import type { ConversationNotes } from '../notes/index.js';
import type { AnyOutboundBody } from '../message-kinds/index.js';
import type { MessageResponse } from '../conversations/index.js';
import { getConversation, latestConversationOf, viewerOf, type ViewerSource } from '../conversations/index.js';

export type { ConversationRef } from '../conversations/index.js';
import type { ConversationRef } from '../conversations/index.js';

export interface ConversationAutomation {
  /** The conversation of `ref` in the entity, or undefined when there is none. */
  resolve(entityId: number, ref: ConversationRef): Promise<number | undefined>;
  /** Who conversation `conversationId` of the entity is with, or undefined (another entity's, unknown, or one `viewer` may not see). */
  parties(
    entityId: number,
    conversationId: number,
    viewer?: ViewerSource,
  ): Promise<{ conversationId: number; contactId: number; leadId: number; groupId: number; channelTypeCode: string } | undefined>;
  /** Sends as the system; a repeated `idempotencyKey` returns the first message. Errors as `OutboundService.send` (404, 400, 422). */
  send(entityId: number, conversationId: number, input: AnyOutboundBody, options: { idempotencyKey: string; origin: EventOrigin }): Promise<MessageResponse>;
  /** To an employee (an active member), or through routing queue `queueId` (round robin; waits in the queue when nobody can take it). */
  assign(
    entityId: number,
    conversationId: number,
    to: { employeeId: number } | { queueId: number },
  ): Promise<{ assigned_employee_id: number | null; assignment_status: string }>;
  /** Writes a private note authored by workflow `by.workflowId`, once per `by.idempotencyKey` (a retried step writes nothing more). */
  addNote(entityId: number, conversationId: number, body: string, by: { workflowId: number; idempotencyKey: string }): Promise<{ noteId: number }>;
  setFollowUp(entityId: number, conversationId: number, followUp: boolean): Promise<void>;
  /**
   * The labels the conversation of `ref` carries now, ascending: its own, its contact's and its lead's (`label_ids`);
   * undefined when the entity has no such conversation.
   */
  labelsOf(entityId: number, ref: ConversationRef): Promise<number[] | undefined>;
  /** Puts labels on the conversation itself (`add`) or takes them off (`remove`); 404 for a label that is not the entity's. */
  label(entityId: number, conversationId: number, change: 'add' | 'remove', labelIds: readonly number[], origin: EventOrigin): Promise<void>;
}

export function createConversationAutomation(deps: {
  db: Db;
  outbound: Pick<OutboundService, 'send'>;
  conversations: Pick<ConversationService, 'setFollowUp'>;
  notes: Pick<ConversationNotes, 'addByWorkflow'>;
  assignment: Pick<AssignmentService, 'assign' | 'assignThroughQueue'>;
  labels: ConversationLabels;
}): ConversationAutomation {
  const system = (entityId: number) => ({ entityId, employeeId: null });
  return {
    async resolve(entityId, ref) {
      return (await latestConversationOf(deps.db, entityId, ref))?.id;
    },
    async parties(entityId, conversationId, viewer) {
      const c = await getConversation(deps.db, entityId, conversationId, false, viewer ? viewerOf(viewer) : undefined);
      return c ? { conversationId: c.id, contactId: c.contactId, leadId: c.leadId, groupId: c.groupId, channelTypeCode: c.channelTypeCode } : undefined;
    },
    send: (entityId, conversationId, input, options) =>
      deps.outbound.send({ entityId, employeeId: null, origin: options.origin, idempotencyKey: options.idempotencyKey }, conversationId, input),
    async assign(entityId, conversationId, to) {
      const row =
        'employeeId' in to
          ? await deps.assignment.assign(system(entityId), conversationId, to.employeeId)
          : await deps.assignment.assignThroughQueue(system(entityId), conversationId, to.queueId);
      return { assigned_employee_id: row.assigned_employee_id, assignment_status: row.assignment_status };
    },
    async addNote(entityId, conversationId, body, by) {
      return { noteId: (await deps.notes.addByWorkflow(entityId, conversationId, body, by)).id };
    },
    async setFollowUp(entityId, conversationId, followUp) {
      await deps.conversations.setFollowUp(system(entityId), conversationId, followUp);
    },
    async labelsOf(entityId, ref) {
      return (await latestConversationOf(deps.db, entityId, ref))?.labelIds;
    },
    async label(entityId, conversationId, change, labelIds, origin) {
      await deps.labels[change](system(entityId), conversationId, labelIds, origin);
    },
  };
}
