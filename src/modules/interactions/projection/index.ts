/** Projection of canonical inbound events into conversations and messages: opening conversations for new chats, recording messages and delivery statuses, routing new conversations. */
export {
  CanonicalEvent as CanonicalEventSchema,
  MESSAGE_TYPES,
  MalformedPayload,
  chatKey,
  chatKeyOf,
  eventKey,
  platformTime,
  validateCanonicalEvents,
} from './canonical.js';
export type { CanonicalEvent, CanonicalMessageEvent, MessageType, Platform } from './canonical.js';
export { receiveMessages } from './inbound-message.service.js';
export type { InboundMessage } from './inbound-message.service.js';
export { applyStatusEvent } from './inbound-status.service.js';
