/**
 * Routing filter conditions (SPEC routing_filter; its fields are "not shown", see
 * docs/decisions.md). Every condition present must hold; an empty set matches everything.
 */
import { Id } from '../../../platform/http/ids.js';
import { Type, type Static } from 'typebox';
import { CHANNEL_TYPE_CODES } from '../model/index.js';

export const RoutingConditions = Type.Object(
  {
    channel_type_codes: Type.Optional(Type.Array(Type.Enum(CHANNEL_TYPE_CODES), { minItems: 1 })),
    entity_channel_account_ids: Type.Optional(Type.Array(Id, { minItems: 1 })),
    /** Case-insensitive substring of the message text. */
    message_text_contains: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    is_first_message: Type.Optional(Type.Boolean()),
    /** Whether the contact's lead (or group) has a seller. */
    lead_has_seller: Type.Optional(Type.Boolean()),
    /** Matches when one of the lead's (or group's) sellers is in the list. */
    lead_seller_employee_ids: Type.Optional(Type.Array(Id, { minItems: 1 })),
  },
  { additionalProperties: false },
);
export type RoutingConditions = Static<typeof RoutingConditions>;

export interface RoutingFacts {
  channelTypeCode: string;
  entityChannelAccountId: number;
  messageText: string;
  isFirstMessage: boolean;
  sellerEmployeeIds: number[];
}

/** True when `facts` satisfy every condition of `c`. */
export function matchesConditions(c: RoutingConditions, facts: RoutingFacts): boolean {
  if (c.channel_type_codes && !(c.channel_type_codes as string[]).includes(facts.channelTypeCode)) return false;
  if (c.entity_channel_account_ids && !c.entity_channel_account_ids.includes(facts.entityChannelAccountId)) return false;
  if (c.message_text_contains !== undefined && !facts.messageText.toLowerCase().includes(c.message_text_contains.toLowerCase())) return false;
  if (c.is_first_message !== undefined && c.is_first_message !== facts.isFirstMessage) return false;
  if (c.lead_has_seller !== undefined && c.lead_has_seller !== facts.sellerEmployeeIds.length > 0) return false;
  if (c.lead_seller_employee_ids && !facts.sellerEmployeeIds.some((id) => c.lead_seller_employee_ids!.includes(id))) return false;
  return true;
}
