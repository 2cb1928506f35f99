/**
 * Messenger and Instagram (Meta's Send API, through the communications service): `recipient.id`,
 * `messaging_type: RESPONSE`, `message`, for the kinds those platforms carry: text, media by link, reactions,
 * and buttons as quick replies (docs/communications-contract.md, "Platforms").
 */
import { unprocessable } from '../../../../platform/errors.js';
import type { AnyOutboundBody, OutboundKind } from '../../message-kinds/index.js';
import type { BuiltMessage, ChannelAdapter, ResolvedReferences } from '../channel.js';
import { normalizeMetaMessaging } from './meta.inbound.js';
import { metaEnvelope } from '../meta-envelope.js';

const SEND_API_KINDS = new Set<OutboundKind>(['text', 'image', 'video', 'audio', 'document', 'reaction', 'interactive/button']);

const ATTACHMENT_TYPE: Partial<Record<OutboundKind, string>> = { image: 'image', video: 'video', audio: 'audio', document: 'file' };

function sendApi(recipient: string, input: AnyOutboundBody, refs: ResolvedReferences): BuiltMessage {
  const head = { recipient: { id: recipient } };
  const reply = refs.replyTo !== undefined ? { reply_to: { mid: refs.replyTo } } : {};
  switch (input.kind) {
    case 'text':
      return { message: { ...head, messaging_type: 'RESPONSE', message: { text: input.body.body, ...reply } }, type: 'text', text: input.body.body };
    case 'reaction':
      return {
        message: { ...head, sender_action: 'react', payload: { message_id: refs.reactTo, reaction: input.body.emoji } },
        type: 'reaction',
        text: input.body.emoji,
      };
    case 'interactive/button': {
      const quickReplies = input.body.action.buttons.map((b) => ({ content_type: 'text', title: b.reply.title, payload: b.reply.id }));
      return {
        message: { ...head, messaging_type: 'RESPONSE', message: { text: input.body.body.text, quick_replies: quickReplies, ...reply } },
        type: 'interactive',
        text: input.body.body.text,
      };
    }
    default: {
      const body = input.body as { link?: string; caption?: string };
      const url = refs.mediaLink ?? body.link;
      if (url === undefined)
        throw unprocessable('unsupported_media_source', 'Messenger and Instagram take media by link or media_id, not by a WhatsApp media id', {
          kind: input.kind,
        });
      const attachment = { type: ATTACHMENT_TYPE[input.kind], payload: { url, is_reusable: true } };
      return { message: { ...head, messaging_type: 'RESPONSE', message: { attachment, ...reply } }, type: input.kind, text: body.caption ?? null };
    }
  }
}

/** Meta's webhook `object` of each platform's messaging events, and how the OpenAPI document names them. */
const WEBHOOK_OBJECT = { messenger: 'page', instagram: 'instagram' } as const;
const ENVELOPE_DESCRIPTION = { messenger: 'Messenger: `entry[].messaging[]`', instagram: 'Instagram messaging: `entry[].messaging[]`' } as const;

const sendApiChannel = (platform: 'messenger' | 'instagram'): ChannelAdapter => ({
  platform,
  serviceWindow: true,
  carriedByService: false,
  inbound: {
    object: WEBHOOK_OBJECT[platform],
    envelope: metaEnvelope(WEBHOOK_OBJECT[platform], ENVELOPE_DESCRIPTION[platform], 'messaging'),
    normalize: (body) => normalizeMetaMessaging(body, platform),
  },
  senderIdentity: (externalChatId) => ({ type: platform, identifier: externalChatId }),
  carries: (kind) => SEND_API_KINDS.has(kind),
  build: sendApi,
});

export const messengerChannel = sendApiChannel('messenger');
export const instagramChannel = sendApiChannel('instagram');
