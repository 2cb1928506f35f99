/** The conversation lifecycle (issue 30): resolve, reopen, pending and snooze, with the durable wake-up of snoozed conversations. */
export { createConversationLifecycle } from './conversation-lifecycle.service.js';
export { lifecycleRoutes } from './lifecycle.routes.js';
export type { ConversationLifecycle } from './conversation-lifecycle.service.js';
