/** The domain events of interactions: the `message.inbound` trigger context, `message.outbound`, and the announcements of assignment, status, label and SLA changes, published after their transaction commits. */
export { announceAssignment, announceLabels, announceSla, announceStatusChange, announceUnassignment, logSlaCycle } from './interactions.events.js';
export type { EventOrigin, MessageInboundTriggerContext, MessageOutboundEvent } from './interactions.events.js';
