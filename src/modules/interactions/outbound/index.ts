/** Sending: the send endpoints (`/interactions/conversations/:id/messages/<kind>`), the platform bodies they build, and the durable send and read-receipt jobs. */
export { outboundRoutes } from './outbound.routes.js';
export type { AnyOutboundBody } from './outbound.schemas.js';
export { createOutboundService } from './outbound.service.js';
export type { OutboundService } from './outbound.service.js';
export { registerSendLatency } from './outbound.metrics.js';
export { channelRoutes } from './channels.routes.js';
