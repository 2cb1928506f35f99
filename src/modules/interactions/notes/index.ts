/** Private notes on conversations (issue 50): a list per conversation with mentions, for agents only, never sent to the customer. */
export { createConversationNotes, type ConversationNotes } from './note.service.js';
export { noteRoutes } from './note.routes.js';
export { historyWithNotes } from './note.repository.js';
