/** The data model of interactions: its tables (one owner, this module), its enumerations, each written once, and the canonical event every channel's events become (intake and apply both read it). Every room builds on it; it imports no room. */
export { cannedReply, cannedReplyUsage } from './canned-reply.table.js';
export { interactionCommunicationsConfig } from './communications-config.table.js';
export { conversation } from './conversation.table.js';
export { conversationLabel } from './conversation-label.table.js';
export { conversationNote } from './conversation-note.table.js';
export { entityChannelAccount } from './entity-channel-account.table.js';
export { interactionWebhookInbox } from './inbox.table.js';
export {
  CHANNEL_AVAILABILITIES,
  CHANNELS,
  ASSIGNMENT_STATUSES,
  ASSIGNMENT_VIAS,
  CHANNEL_TYPE_CODES,
  CONVERSATION_STATUSES,
  MESSAGE_DIRECTIONS,
  MESSAGE_STATUSES,
  PLATFORM_CODES,
  SLA_METRICS,
  SLA_STATUSES,
  SLA_TIME_BASES,
  STATUS_RANK,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
} from './interactions.enums.js';
export type {
  AssignmentVia,
  ChannelTypeCode,
  ConversationEventKind,
  ConversationStatus,
  DeliveryStatus,
  IntakeState,
  Platform,
  SlaMetric,
  SlaStatus,
  SlaTimeBasis,
  TemplateStatus,
} from './interactions.enums.js';
export { REPORT_GROUPINGS } from './conversation-report-day.table.js';
export {
  CanonicalEvent as CanonicalEventSchema,
  MESSAGE_TYPES,
  MalformedPayload,
  chatKey,
  chatKeyOf,
  eventKey,
  platformTime,
  validateCanonicalEvents,
} from './canonical-event.js';
export type { CanonicalEvent, CanonicalMessageEvent, CanonicalStatusEvent, MessageType } from './canonical-event.js';
export { message } from './message.table.js';
export { businessHours, conversationSlaBreach, slaPolicy } from './service-level.table.js';
export type { SlaState, SlaClock } from './sla-state.js';
export { routingFilter, routingQueue, routingQueueMember, routingRrCursor } from './routing.table.js';
export { interactionTemplate } from './template.table.js';
export { webChannelSettings, webVisitor } from './web-channel.table.js';
export type { PrechatFields, WidgetAppearance } from './web-channel.table.js';
