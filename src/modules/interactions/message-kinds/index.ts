/**
 * The outbound message kinds (`POST /interactions/conversations/:id/messages/<kind>`): each kind's request body.
 * Which channel carries a kind, and the platform body it becomes, are the channels' (`channels/`).
 */
export { OUTBOUND_KINDS, type AnyOutboundBody, type OutboundKind } from './message-kinds.schemas.js';
