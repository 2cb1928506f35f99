/** Labels on conversations (issue 49): the conversation's own links to the entity's label catalogue, put on and taken off. */
export { createConversationLabels, type ConversationLabels } from './conversation-labels.service.js';
export { conversationLabelRoutes } from './conversation-labels.routes.js';
