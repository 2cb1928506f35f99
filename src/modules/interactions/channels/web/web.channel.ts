/** The website chat (issue 32): carried by this service itself, to the visitor's sockets; no service window. */
import { randomBytes } from 'node:crypto';
import { unprocessable } from '../../../../platform/errors.js';
import type { AnyOutboundBody, OutboundKind } from '../../message-kinds/index.js';
import type { BuiltMessage, ChannelAdapter, ResolvedReferences } from '../channel.js';

/** What the website chat shows: text, images and documents. */
const WEB_KINDS = new Set<OutboundKind>(['text', 'image', 'document']);

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

export const webChannel: ChannelAdapter = {
  platform: 'web',
  serviceWindow: false,
  carriedByService: true,
  senderIdentity: (externalChatId) => ({ type: 'web', identifier: externalChatId }),
  // The public website token: unguessable, never chosen by a client.
  newAccountId: () => `wt_${randomBytes(18).toString('base64url')}`,
  carries: (kind) => WEB_KINDS.has(kind),
  build: (_recipient, input, refs) => web(input, refs),
};
