/** The domain events of interactions: the `message.inbound` trigger context, `message.outbound`, and the announcements of assignment, status and SLA changes, published after their transaction commits. */
export { announceAssignment, announceSla, announceStatusChange, announceUnassignment, logSlaCycle } from './interactions.events.js';
export type { EventOrigin, MessageInboundTriggerContext, MessageOutboundEvent } from './interactions.events.js';
