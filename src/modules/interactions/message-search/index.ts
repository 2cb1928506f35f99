/** Search over messages and conversations for the search module (issue 51), under the inbox's visibility rule. */
export { createConversationSearch, type ConversationSearch } from './message-search.service.js';
