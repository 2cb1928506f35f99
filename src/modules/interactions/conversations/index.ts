/** Conversations and their messages: the inbox API (list, tab counts, detail, history, notes, read, follow-up), who may see and answer them, and their realtime events. */
export { previewOf, toConversationResponse, toMessageResponse, toNoteResponse } from './conversation.mapper.js';
export type { ConversationRow, MessageRow, NoteRow } from './conversation.mapper.js';
export {
  claimConversation,
  getConversation,
  visibleAmong,
  latestConversationOf,
  queuesOfMembers,
  updateConversation,
  viewerHasMedia,
  wakeSnoozed,
} from './conversation.repository.js';
export { createConversationAudience } from './conversation-audience.js';
export { mayAnswer, VIEW_ALL, viewerOf, visibleTo } from './conversation-visibility.js';
export type { ConversationViewer, ViewerSource } from './conversation-visibility.js';
export type { ConversationRef } from './conversation.repository.js';
export { conversationRoutes } from './conversation.routes.js';
export { AssignBody, ConversationResponse, IdParams, MessageResponse, NOTE_MAX_LENGTH, NoteResponse } from './conversation.schemas.js';
export { createConversationService } from './conversation.service.js';
export type { Actor, ConversationService, HistoryItem } from './conversation.service.js';
export {
  emitConversationAssigned,
  emitConversationCreated,
  emitConversationSla,
  emitConversationStatusChanged,
  emitConversationUpdated,
  emitMessageCreated,
  emitMessageStatus,
  roomsOf as conversationRooms,
} from './interactions.realtime.js';
export { serviceWindowExpiresAt } from './service-window.js';
/** The conversation's messages, newest first, keyset after (occurred_at_ms, id): the notes room merges its notes into it. */
export { history as messageHistory } from './conversation.repository.js';
