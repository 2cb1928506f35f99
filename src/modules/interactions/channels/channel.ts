/**
 * A channel adapter (DESIGN "Channels, publishing, units of work"; issue 47): what the pipeline asks of a
 * channel, so that it names none. Each channel is one folder of `channels/` with its adapter, registered in
 * `channels/index.ts`; adding a channel is one folder plus its registration.
 */
import type { TSchema } from 'typebox';
import type { ContactChannelType } from '../../records/index.js';
import type { TemplateReview } from '../templates/index.js';
import type { Platform } from '../model/index.js';
import type { AnyOutboundBody, OutboundKind } from '../message-kinds/index.js';

/** Platform ids this service resolved for a send request (from our ids in the body). */
export interface ResolvedReferences {
  /** Platform id of the message replied to (`reply_to_message_id`). */
  replyTo?: string | undefined;
  /** Platform id of the message reacted to (reaction `message_id`). */
  reactTo?: string | undefined;
  /** A signed link to the media object named by `media_id`. */
  mediaLink?: string | undefined;
}

export interface BuiltMessage {
  /** The body posted to the communications service (or, on a channel the service carries itself, delivered by it). */
  message: Record<string, unknown>;
  /** The stored message type (`interactive` for every interactive kind). */
  type: string;
  /** Text kept on the stored message (body, caption, template name), null when none. */
  text: string | null;
}

export interface ChannelAdapter {
  platform: Platform;
  /**
   * Whether a free-form answer must fall within the platform's customer service window (24 hours after the
   * customer's last message; SPEC "Service window"). The website chat has none.
   */
  serviceWindow: boolean;
  /**
   * Whether this service carries the channel itself (the website chat: delivered to the visitor's sockets, read
   * receipts included) rather than through the communications service, whose configuration it then needs not.
   */
  carriedByService: boolean;
  /**
   * The contact channel a new chat's sender is found or created by: WhatsApp by phone, others by their platform
   * user id (a website visitor by its chat id, never by what it typed).
   */
  senderIdentity(externalChatId: string, sender: { phone: string | null } | null): { type: ContactChannelType; identifier: string };
  /** For a channel whose accounts this service names itself (a website's public token): a new account id. */
  newAccountId?: () => string;
  /**
   * How the communications webhook recognizes the platform's own payloads (its `object`) and turns them into
   * canonical events (SPEC "Inbound webhook processing order", step 2; throws `MalformedPayload`), with the
   * template review changes they carry; none for a channel whose events only this service writes.
   */
  inbound?: {
    object: string;
    /** The payload's shape, for the webhook's OpenAPI document only (the webhook parses the raw body itself). */
    envelope: TSchema;
    normalize(body: Record<string, unknown>): unknown[];
    templateReviews?(body: Record<string, unknown>): TemplateReview[];
  };
  /** Whether the channel can carry outbound messages of `kind`. */
  carries(kind: OutboundKind): boolean;
  /** The platform body of `input` for the chat `recipient` (wa_id, PSID, IGSID or visitor chat); `input.kind` is carried. */
  build(recipient: string, input: AnyOutboundBody, refs: ResolvedReferences): BuiltMessage;
}

/** `body` without the fields that name our own records (the reply's and the media object's ids). */
export function withoutOurFields(body: Record<string, unknown>): Record<string, unknown> {
  const { reply_to_message_id: _reply, media_id: _media, ...rest } = body;
  return rest;
}
