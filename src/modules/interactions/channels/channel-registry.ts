/** The registry of channel adapters, by platform: what the pipeline asks instead of naming a channel. */
import { unprocessable } from '../../../platform/errors.js';
import { PLATFORM_CODES, type ChannelTypeCode, type Platform } from '../model/index.js';
import type { AnyOutboundBody, OutboundKind } from '../message-kinds/index.js';
import type { BuiltMessage, ChannelAdapter, ResolvedReferences } from './channel.js';
import { instagramChannel, messengerChannel } from './meta/meta.channel.js';
import { webChannel } from './web/web.channel.js';
import { whatsAppChannel } from './whatsapp/whatsapp.channel.js';

const ADAPTERS: Readonly<Record<Platform, ChannelAdapter>> = {
  whatsapp: whatsAppChannel,
  messenger: messengerChannel,
  instagram: instagramChannel,
  web: webChannel,
};

/** The adapter of `platform`. */
export function channelOf(platform: Platform): ChannelAdapter {
  return ADAPTERS[platform];
}

/** The adapter whose platform payloads carry `object` (the communications webhook's `object` field), if any. */
export function channelOfPayload(object: unknown): ChannelAdapter | undefined {
  return Object.values(ADAPTERS).find((a) => a.inbound !== undefined && a.inbound.object === object);
}

/** The platform payloads' shapes the webhook accepts, one per channel with inbound payloads (OpenAPI only). */
export const PAYLOAD_ENVELOPES = Object.values(ADAPTERS).flatMap((a) => (a.inbound ? [a.inbound.envelope] : []));

/** The webhook `object`s the channels recognize, for an error naming them. */
export const PAYLOAD_OBJECTS: readonly string[] = Object.values(ADAPTERS).flatMap((a) => (a.inbound ? [a.inbound.object] : []));

/** Each channel type code's adapter, from `PLATFORM_CODES` (every code belongs to one platform). */
const BY_CODE = new Map<ChannelTypeCode, ChannelAdapter>(
  (Object.keys(PLATFORM_CODES) as Platform[]).flatMap((p) => PLATFORM_CODES[p].map((code) => [code, ADAPTERS[p]] as const)),
);

/** The adapter of the platform that carries accounts of channel type `code`. */
export function channelOfCode(code: ChannelTypeCode): ChannelAdapter {
  return BY_CODE.get(code)!;
}

/** Whether `platform` can carry messages of `kind`. */
export function platformCarries(platform: Platform, kind: OutboundKind): boolean {
  return ADAPTERS[platform].carries(kind);
}

/** Builds the platform body of `input` for the chat `recipient`. Throws 422 `unsupported_message_type`. */
export function buildPlatformMessage(platform: Platform, recipient: string, input: AnyOutboundBody, refs: ResolvedReferences): BuiltMessage {
  const channel = ADAPTERS[platform];
  if (!channel.carries(input.kind)) {
    throw unprocessable('unsupported_message_type', `A ${platform} conversation cannot carry ${input.kind} messages`, { platform, kind: input.kind });
  }
  return channel.build(recipient, input, refs);
}
