/** Rows to API shapes (explicit, so internal columns never leak). */
import type { conversation } from '../model/index.js';
import type { conversationNote, message } from '../model/index.js';
import type { ConversationResponse, MessageResponse, NoteResponse } from './conversation.schemas.js';
import { serviceWindowExpiresAt } from './service-window.js';
import { dueOf, slaStatusOf } from '../service-levels/index.js';
import { channelOfCode } from '../channels/index.js';

export type ConversationRow = typeof conversation.$inferSelect;
export type MessageRow = typeof message.$inferSelect;
export type NoteRow = typeof conversationNote.$inferSelect;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** The API shape of a conversation; `now` decides `sla_status` (a due instant passed is `breached` even before its timer fires). */
export function toConversationResponse(r: ConversationRow, now: Date = new Date()): ConversationResponse {
  return {
    id: r.id,
    entity_id: r.entityId,
    entity_channel_account_id: r.entityChannelAccountId,
    channel_type_code: r.channelTypeCode,
    external_chat_id: r.externalChatId,
    contact_id: r.contactId,
    lead_id: r.leadId,
    group_id: r.groupId,
    sender_name: r.senderName,
    assignment_status: r.assignmentStatus,
    assigned_employee_id: r.assignedEmployeeId,
    assigned_at: iso(r.assignedAt),
    queue_id: r.queueId,
    last_message_id: r.lastMessageId,
    last_message_preview: r.lastMessagePreview,
    last_message_at: iso(r.lastMessageAt),
    unread_count: r.unreadCount,
    service_window_expires_at: channelOfCode(r.channelTypeCode).serviceWindow ? (serviceWindowExpiresAt(r.lastInboundAt)?.toISOString() ?? null) : null,
    follow_up: r.followUp,
    workspace_notes: r.workspaceNotes,
    status: r.status,
    status_changed_at: iso(r.statusChangedAt),
    status_changed_by: r.statusChangedBy,
    snoozed_until: iso(r.snoozedUntil),
    first_response_due_at: dueOf(r.slaState, 'first_response'),
    next_response_due_at: dueOf(r.slaState, 'next_response'),
    resolution_due_at: dueOf(r.slaState, 'resolution'),
    sla_status: slaStatusOf(r.slaState, now),
    labels: r.labels,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function toMessageResponse(r: MessageRow): MessageResponse {
  return {
    id: r.id,
    conversation_id: r.conversationId,
    direction: r.direction,
    type: r.type,
    text: r.text,
    content: r.content as Record<string, unknown>,
    external_message_id: r.externalMessageId,
    reply_to_external_id: r.replyToExternalId,
    media_id: r.mediaId,
    status: r.status,
    sent_at: iso(r.sentAt),
    delivered_at: iso(r.deliveredAt),
    read_at: iso(r.readAt),
    failed_at: iso(r.failedAt),
    errors: (r.errors as unknown[] | null) ?? null,
    occurred_at: r.occurredAt.toISOString(),
  };
}

export function toNoteResponse(r: NoteRow): NoteResponse {
  return {
    kind: 'note',
    id: r.id,
    conversation_id: r.conversationId,
    author_employee_id: r.authorEmployeeId,
    author_workflow_id: r.authorWorkflowId,
    body: r.body,
    mentioned_employee_ids: r.mentionedEmployeeIds,
    attachment_ids: r.attachmentIds,
    occurred_at: new Date(r.occurredAtMs).toISOString(),
    created_at: r.createdAt.toISOString(),
    edited_at: iso(r.editedAt),
  };
}

/** The inbox preview of a message: its text (first 200 UTF-16 units) or `[type]` when it has none. */
export function previewOf(m: { text: string | null; type: string }): string {
  return m.text !== null && m.text !== '' ? m.text.slice(0, 200) : `[${m.type}]`;
}
