/**
 * The outbound message kinds (`POST /interactions/conversations/:id/messages/<kind>`): each kind's request body,
 * which platform carries it, the platform body it becomes (pure), and the channel catalogue built from them
 * (`GET /interactions/channels`).
 */
export { OUTBOUND_KINDS, type AnyOutboundBody, type OutboundKind } from './message-kinds.schemas.js';
export { buildPlatformMessage, platformCarries, type ResolvedReferences } from './platform-message.builder.js';
export { channelRoutes } from './channels.routes.js';
