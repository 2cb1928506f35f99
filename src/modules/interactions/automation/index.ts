/** What workflows do to conversations, as the system: find, send, assign, note, follow-up. */
export { createConversationAutomation } from './conversation-automation.service.js';
export type { ConversationAutomation } from './conversation-automation.service.js';
export type { ConversationRef } from './conversation-automation.service.js';
