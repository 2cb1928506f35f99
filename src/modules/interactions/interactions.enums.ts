/**
 * The enumerations of the interactions module, each written once. Tables (pgEnum, column types), TypeBox
 * schemas, routing conditions, the SQL that maps platforms to channel types and the documentation test
 * all take their values from here.
 */

/** Channel types of an entity's messaging account (SPEC field registry `trigger.channel_type_code`). */
export const CHANNEL_TYPE_CODES = ['chatapp_api', 'chatapp_business', 'social_messenger', 'social_dm'] as const;
export type ChannelTypeCode = (typeof CHANNEL_TYPE_CODES)[number];

/** Messaging platforms whose events the communications webhook receives. */
export const PLATFORMS = ['whatsapp', 'messenger', 'instagram'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Channel type codes an account of each platform may carry; the first is the one given to an account registered from an event. */
export const PLATFORM_CODES: Readonly<Record<Platform, readonly [ChannelTypeCode, ...ChannelTypeCode[]]>> = {
  whatsapp: ['chatapp_api', 'chatapp_business'],
  messenger: ['social_messenger'],
  instagram: ['social_dm'],
};

/** Delivery statuses a platform reports for an outbound message, in the order they are reached (`failed` is terminal). */
export const DELIVERY_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Statuses of an outbound message: `pending` (stored, queued for sending) and then the delivery statuses. */
export const MESSAGE_STATUSES = ['pending', ...DELIVERY_STATUSES] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

/** `unassigned`, `queued` (waiting in a routing queue for a free member) or `assigned` (to an employee). */
export const ASSIGNMENT_STATUSES = ['unassigned', 'queued', 'assigned'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

/** How a conversation came to its employee: the lead's or group's seller, a queue's round robin, or the API. */
export const ASSIGNMENT_VIAS = ['seller', 'queue', 'manual'] as const;
export type AssignmentVia = (typeof ASSIGNMENT_VIAS)[number];

/** States of an inbox row: pending → processed | unroutable | dead (dead letter). */
export const INBOX_STATES = ['pending', 'processed', 'unroutable', 'dead'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

/** Review states of a message template on the platform; only `approved` can be sent. */
export const TEMPLATE_STATUSES = ['pending', 'approved', 'rejected', 'paused'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** WhatsApp template categories. */
export const TEMPLATE_CATEGORIES = ['marketing', 'utility', 'authentication'] as const;
