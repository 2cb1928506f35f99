/** The conversation event log's writing side: every room that changes a conversation logs what it did here, in its transaction. */
export { logConversationEvent, statusEventKind } from './conversation-event.log.js';
export type { StatusCause } from './conversation-event.log.js';
