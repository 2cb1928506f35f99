/** Sending: the send endpoints (`/interactions/conversations/:id/messages/<kind>`), their checks (service window, templates, references, media), and the durable send and read-receipt jobs. */
export { outboundRoutes } from './outbound.routes.js';
export { createOutboundService } from './outbound.service.js';
export type { DirectDelivery, OutboundService } from './outbound.service.js';
export { registerSendLatency } from './outbound.metrics.js';
