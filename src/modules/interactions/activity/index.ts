/** The conversation event log's writing side: every room that changes a conversation does so in a `changeConversations` change and logs what it did on its `log`. */
export { changeConversations, statusEventKind } from './conversation-event.log.js';
export type { ConversationChange, StatusCause } from './conversation-event.log.js';
