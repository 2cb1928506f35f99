/**
 * The channel adapters (issue 47): WhatsApp, Meta's Messenger and Instagram, and the website chat, each in its
 * folder, and the catalogue route (`GET /interactions/channels`). The pipeline asks `channelOf(platform)` what a
 * channel does and never names one.
 */
export type { ResolvedReferences } from './channel.js';
export { buildPlatformMessage, channelOf, channelOfCode, channelOfPayload, PAYLOAD_ENVELOPES, PAYLOAD_OBJECTS, platformCarries } from './channel-registry.js';
export { asRecord } from './payload-reading.js';
export { channelRoutes } from './channels.routes.js';
