/**
 * The enumerations of the interactions module, each written once. Tables (pgEnum, column types), TypeBox
 * schemas, routing conditions, the SQL that maps platforms to channel types and the documentation test
 * all take their values from here.
 */

/** Channel types of an entity's messaging account (SPEC field registry `trigger.channel_type_code`). */
export const CHANNEL_TYPE_CODES = ['chatapp_api', 'chatapp_business', 'social_messenger', 'social_dm', 'web'] as const;
export type ChannelTypeCode = (typeof CHANNEL_TYPE_CODES)[number];

/**
 * Messaging platforms whose events enter the webhook intake: the communications webhook's three, and `web`, the
 * website chat this service carries itself (issue 32; only the visitor API writes its events).
 */
export const PLATFORMS = ['whatsapp', 'messenger', 'instagram', 'web'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Channel type codes an account of each platform may carry; the first is the one given to an account registered from an event. */
export const PLATFORM_CODES: Readonly<Record<Platform, readonly [ChannelTypeCode, ...ChannelTypeCode[]]>> = {
  whatsapp: ['chatapp_api', 'chatapp_business'],
  messenger: ['social_messenger'],
  instagram: ['social_dm'],
  web: ['web'],
};

/** How far a channel is (SPEC "Versioning"): in production, available to entities, or planned (no accounts yet). */
export const CHANNEL_AVAILABILITIES = ['production', 'available', 'planned'] as const;
export type ChannelAvailability = (typeof CHANNEL_AVAILABILITIES)[number];

/**
 * The channels of SPEC "Interactions resources", the one catalogue: each channel's availability, the
 * platform that carries it and its channel type codes (none while planned). `GET /interactions/channels`.
 */
export const CHANNELS: readonly {
  channel: string;
  availability: ChannelAvailability;
  platform: Platform | null;
  channel_type_codes: readonly ChannelTypeCode[];
}[] = [
  { channel: 'chatapp', availability: 'production', platform: 'whatsapp', channel_type_codes: PLATFORM_CODES.whatsapp },
  { channel: 'social_dm', availability: 'available', platform: 'instagram', channel_type_codes: PLATFORM_CODES.instagram },
  { channel: 'social_messenger', availability: 'available', platform: 'messenger', channel_type_codes: PLATFORM_CODES.messenger },
  { channel: 'shortvideo', availability: 'planned', platform: null, channel_type_codes: [] },
  { channel: 'web', availability: 'available', platform: 'web', channel_type_codes: PLATFORM_CODES.web },
];

/** Delivery statuses a platform reports for an outbound message, in the order they are reached (`failed` is terminal). */
export const DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The order of the delivery statuses (a status only moves up); `pending` (an outbound message not yet accepted by the platform) is rank 0. */
export const STATUS_RANK: Readonly<Record<DeliveryStatus, number>> = { sent: 1, delivered: 2, read: 3, failed: 4 };

/** Statuses of an outbound message: `pending` (stored, queued for sending) and then the delivery statuses. */
export const MESSAGE_STATUSES = ['pending', ...DELIVERY_STATUSES] as const;

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;

/** `unassigned`, `queued` (waiting in a routing queue for a free member) or `assigned` (to an employee). */
export const ASSIGNMENT_STATUSES = ['unassigned', 'queued', 'assigned'] as const;

/**
 * Lifecycle of a conversation (issue 30): `open`, `pending` (waiting on the customer), `snoozed` (until an
 * instant, then open again) or `resolved`. The transitions are in conversations/conversation-lifecycle.ts.
 */
export const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** The targets of an SLA policy (issue 31): the first response, the next response after a customer's message, the resolution. */
export const SLA_METRICS = ['first_response', 'next_response', 'resolution'] as const;
export type SlaMetric = (typeof SLA_METRICS)[number];

/** Whether an SLA policy's minutes count business time (its business hours) or every minute. */
export const SLA_TIME_BASES = ['business', 'calendar'] as const;
export type SlaTimeBasis = (typeof SLA_TIME_BASES)[number];

/** A conversation's standing against its policy (null without one); `at_risk` once a clock has used the policy's share. */
export const SLA_STATUSES = ['on_track', 'at_risk', 'breached'] as const;
export type SlaStatus = (typeof SLA_STATUSES)[number];

/**
 * What the conversation event log records (issue 31; docs/api/interactions.md "Conversation event log").
 * `opened`: the conversation was created by its first message. `assigned` / `claimed` (an agent answering an
 * unassigned conversation takes it) / `unassigned`. `first_response`: the first message an employee sent
 * through this service. `message_in` / `message_out`. Status changes: `resolved`, `reopened` (resolved →
 * open), `pending`, `snoozed` (also a snooze moved), `woke` (a snooze ended on time), `resumed` (pending or
 * snoozed → open by an agent or a customer's message). `sla_policy_applied` and `sla_breached` (`data.metric`)
 * are written by the SLA timers.
 */
export const CONVERSATION_EVENT_KINDS = [
  'opened',
  'assigned',
  'claimed',
  'unassigned',
  'first_response',
  'message_in',
  'message_out',
  'resolved',
  'reopened',
  'pending',
  'snoozed',
  'woke',
  'resumed',
  'sla_policy_applied',
  'sla_breached',
] as const;
export type ConversationEventKind = (typeof CONVERSATION_EVENT_KINDS)[number];

/** How a conversation came to its employee: the lead's or group's seller, a queue's round robin, or the API. */
export const ASSIGNMENT_VIAS = ['seller', 'queue', 'manual'] as const;
export type AssignmentVia = (typeof ASSIGNMENT_VIAS)[number];

/** States of an intake row (`interaction_webhook_inbox`): pending → processed | unroutable | dead (dead letter). */
export const INTAKE_STATES = ['pending', 'processed', 'unroutable', 'dead'] as const;
export type IntakeState = (typeof INTAKE_STATES)[number];

/** Review states of a message template on the platform; only `approved` can be sent. */
export const TEMPLATE_STATUSES = ['pending', 'approved', 'rejected', 'paused'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** WhatsApp template categories. */
export const TEMPLATE_CATEGORIES = ['marketing', 'utility', 'authentication'] as const;
