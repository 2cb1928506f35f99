/** Conversations and their messages: the inbox API (list, tab counts, detail, history, notes, read, follow-up, lifecycle), the media proxy, the realtime events and the domain events of interactions. */
export { previewOf, toConversationResponse, toMessageResponse } from './conversation.mapper.js';
export type { ConversationRow, MessageRow } from './conversation.mapper.js';
export { claimConversation, getConversation, latestConversationOf, queuesOfMembers, updateConversation } from './conversation.repository.js';
export { createConversationAudience } from './conversation-audience.js';
export { mayAnswer, VIEW_ALL, viewerOf } from './conversation-visibility.js';
export type { ConversationViewer, ViewerSource } from './conversation-visibility.js';
export type { ConversationRef } from './conversation.repository.js';
export { conversationRoutes } from './conversation.routes.js';
export { AssignBody, ConversationResponse, IdParams, MessageResponse } from './conversation.schemas.js';
export { createConversationService } from './conversation.service.js';
export { createConversationLifecycle } from './conversation-lifecycle.service.js';
export type { Actor, ConversationService } from './conversation.service.js';
export { announceAssignment, announceSla, announceStatusChange, announceUnassignment, logSlaCycle } from './interactions.events.js';
export type { EventOrigin, MessageInboundTriggerContext, MessageOutboundEvent } from './interactions.events.js';
export {
  emitConversationCreated,
  emitConversationUpdated,
  emitMessageCreated,
  emitMessageStatus,
  roomsOf as conversationRooms,
} from './interactions.realtime.js';
export { mediaProxyRoutes } from './media-proxy.routes.js';
export { createMediaProxyService } from './media-proxy.service.js';
export { serviceWindowExpiresAt } from './service-window.js';
