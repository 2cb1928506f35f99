/** Projection of canonical inbound events into conversations and messages: opening conversations for new chats, recording messages and delivery statuses, routing new conversations. */
export { receiveMessages } from './inbound-message.service.js';
export type { InboundMessage } from './inbound-message.service.js';
export { applyStatusEvent } from './inbound-status.service.js';
