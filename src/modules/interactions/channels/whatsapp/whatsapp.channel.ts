/**
 * WhatsApp (Cloud API, through the communications service): the message object as in Meta's reference examples
 * (test/fixtures/platform-payloads/whatsapp-outbound/): `messaging_product`, `recipient_type` (omitted for
 * contacts, as Meta's contacts reference does; `individual` is the default), `to` in E.164 with `+`, optional
 * `context`, then the type's object. It carries every outbound kind.
 */
import type { AnyOutboundBody, OutboundKind } from '../../message-kinds/index.js';
import { withoutOurFields, type BuiltMessage, type ChannelAdapter, type ResolvedReferences } from '../channel.js';
import { normalizeWhatsApp, whatsAppTemplateReviews } from './whatsapp.inbound.js';
import { metaEnvelope } from '../meta-envelope.js';

const MEDIA_KINDS = new Set<OutboundKind>(['image', 'video', 'audio', 'document', 'sticker']);

function mediaObject(body: Record<string, unknown>, refs: ResolvedReferences): Record<string, unknown> {
  const out = withoutOurFields(body);
  if (refs.mediaLink !== undefined) out.link = refs.mediaLink;
  return out;
}

function whatsApp(recipient: string, input: AnyOutboundBody, refs: ResolvedReferences): BuiltMessage {
  const to = recipient.startsWith('+') ? recipient : `+${recipient}`;
  const head: Record<string, unknown> = { messaging_product: 'whatsapp' };
  if (input.kind !== 'contacts') head.recipient_type = 'individual';
  head.to = to;
  if (refs.replyTo !== undefined) head.context = { message_id: refs.replyTo };
  const body = input.body as Record<string, unknown>;
  switch (input.kind) {
    case 'text':
      return { message: { ...head, type: 'text', text: withoutOurFields(body) }, type: 'text', text: input.body.body };
    case 'location':
      return { message: { ...head, type: 'location', location: withoutOurFields(body) }, type: 'location', text: input.body.name ?? null };
    case 'contacts':
      return {
        message: { ...head, type: 'contacts', contacts: input.body.contacts },
        type: 'contacts',
        text: input.body.contacts[0]?.name.formatted_name ?? null,
      };
    case 'reaction':
      return {
        message: { ...head, type: 'reaction', reaction: { message_id: refs.reactTo, emoji: input.body.emoji } },
        type: 'reaction',
        text: input.body.emoji,
      };
    case 'template':
      return { message: { ...head, type: 'template', template: input.body }, type: 'template', text: input.body.name };
    case 'interactive/button':
    case 'interactive/list':
    case 'interactive/cta-url':
    case 'interactive/cta-url-image': {
      const type = input.kind === 'interactive/button' ? 'button' : input.kind === 'interactive/list' ? 'list' : 'cta_url';
      return { message: { ...head, type: 'interactive', interactive: { type, ...withoutOurFields(body) } }, type: 'interactive', text: input.body.body.text };
    }
    default: {
      if (!MEDIA_KINDS.has(input.kind)) throw new Error(`no WhatsApp builder for ${input.kind}`);
      const media = mediaObject(body, refs);
      return { message: { ...head, type: input.kind, [input.kind]: media }, type: input.kind, text: typeof media.caption === 'string' ? media.caption : null };
    }
  }
}

export const whatsAppChannel: ChannelAdapter = {
  platform: 'whatsapp',
  serviceWindow: true,
  carriedByService: false,
  inbound: {
    object: 'whatsapp_business_account',
    envelope: metaEnvelope(
      'whatsapp_business_account',
      'WhatsApp Cloud API: messages, statuses, errors and template reviews in `entry[].changes[].value`',
      'changes',
    ),
    normalize: normalizeWhatsApp,
    templateReviews: whatsAppTemplateReviews,
  },
  senderIdentity: (externalChatId, sender) => ({ type: 'whatsapp', identifier: sender?.phone ?? `+${externalChatId}` }),
  carries: () => true,
  build: whatsApp,
};
