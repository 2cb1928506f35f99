/**
 * Turns a send request into the body the communications service forwards to the platform (pure):
 * - WhatsApp: the Cloud API message object, as in Meta's reference examples
 *   (test/fixtures/platform-payloads/whatsapp-outbound/): `messaging_product`, `recipient_type`
 *   (omitted for contacts, as Meta's contacts reference does; `individual` is the default), `to` in
 *   E.164 with `+`, optional `context`, then the type's object.
 * - Messenger and Instagram: the Send API shape (`recipient.id`, `messaging_type: RESPONSE`, `message`),
 *   for the kinds those platforms carry: text, media by link, reactions, and buttons as quick replies.
 *   Any other kind is 422 `unsupported_message_type` (docs/communications-contract.md, "Platforms").
 */
import { unprocessable } from '../../../platform/errors.js';
import type { Platform } from '../model/index.js';
import type { AnyOutboundBody, OutboundKind } from './message-kinds.schemas.js';

/** Platform ids this service resolved for the request (from our ids in the body). */
export interface ResolvedReferences {
  /** Platform id of the message replied to (`reply_to_message_id`). */
  replyTo?: string | undefined;
  /** Platform id of the message reacted to (reaction `message_id`). */
  reactTo?: string | undefined;
  /** A signed link to the media object named by `media_id`. */
  mediaLink?: string | undefined;
}

export interface BuiltMessage {
  /** The body posted to the communications service. */
  message: Record<string, unknown>;
  /** The stored message type (`interactive` for every interactive kind). */
  type: string;
  /** Text kept on the stored message (body, caption, template name), null when none. */
  text: string | null;
}

const MEDIA_KINDS = new Set<OutboundKind>(['image', 'video', 'audio', 'document', 'sticker']);
const OTHER_PLATFORM_KINDS = new Set<OutboundKind>(['text', 'image', 'video', 'audio', 'document', 'reaction', 'interactive/button']);
/** What the website chat shows (issue 32): text, images and documents. */
const WEB_KINDS = new Set<OutboundKind>(['text', 'image', 'document']);

/** Whether `platform` can carry messages of `kind`. */
export function platformCarries(platform: Platform, kind: OutboundKind): boolean {
  if (platform === 'web') return WEB_KINDS.has(kind);
  return platform === 'whatsapp' || OTHER_PLATFORM_KINDS.has(kind);
}

/** Builds the platform body of `input` for the chat `recipient` (wa_id, PSID or IGSID). Throws 422 `unsupported_message_type`. */
export function buildPlatformMessage(platform: Platform, recipient: string, input: AnyOutboundBody, refs: ResolvedReferences): BuiltMessage {
  if (!platformCarries(platform, input.kind)) {
    throw unprocessable('unsupported_message_type', `A ${platform} conversation cannot carry ${input.kind} messages`, { platform, kind: input.kind });
  }
  if (platform === 'web') return web(input, refs);
  return platform === 'whatsapp' ? whatsApp(recipient, input, refs) : sendApi(recipient, input, refs);
}

/**
 * The website chat's message (issue 32): `{ type, text, media? }`, text kept as text (the widget never
 * renders it as HTML); media by link or media object (`media.link` is signed at each attempt).
 */
function web(input: AnyOutboundBody, refs: ResolvedReferences): BuiltMessage {
  if (input.kind === 'text') return { message: { type: 'text', text: input.body.body }, type: 'text', text: input.body.body };
  const body = input.body as { link?: string; caption?: string; filename?: string };
  const link = refs.mediaLink ?? body.link;
  if (link === undefined)
    throw unprocessable('unsupported_media_source', 'The web channel takes media by link or media_id, not by a platform media id', { kind: input.kind });
  const media: Record<string, unknown> = { kind: input.kind, link };
  if (body.filename !== undefined) media.filename = body.filename;
  return { message: { type: input.kind, text: body.caption ?? null, media }, type: input.kind, text: body.caption ?? null };
}

function withoutOurFields(body: Record<string, unknown>): Record<string, unknown> {
  const { reply_to_message_id: _reply, media_id: _media, ...rest } = body;
  return rest;
}

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
