/**
 * Request bodies of the sending endpoints (`POST /interactions/conversations/:id/messages/<kind>`). Each
 * body is the WhatsApp Cloud API object of that message type (docs/api.md "Sending messages"), with our
 * own ids where the platform's would be: `reply_to_message_id` and a reaction's `message_id` are ids of
 * this service's messages in the same conversation; media take a platform media `id`, a `link`, or
 * `media_id` (a ready media object of the entity, sent as a signed link).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { IdOf } from '../../../platform/http/ids.js';
import { TemplateMessageBody } from '../templates/index.js';

const strict = { additionalProperties: false } as const;
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Url = Type.String({ format: 'uri', maxLength: 2000, pattern: '^https?://' });
const ReplyTo = { reply_to_message_id: Type.Optional(IdOf('Our id of the message this one replies to (same conversation)')) };

const TextMessageBody = Type.Object({ body: Text(4096), preview_url: Type.Optional(Type.Boolean()), ...ReplyTo }, strict);

const mediaSource = {
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A platform media id' })),
  link: Type.Optional(Url),
  media_id: Type.Optional(IdOf('A media object of the entity, ready or processing (sent as a signed link once ready)')),
};
const ImageMessageBody = Type.Object({ ...mediaSource, caption: Type.Optional(Text(1024)), ...ReplyTo }, strict);
const VideoMessageBody = ImageMessageBody;
const AudioMessageBody = Type.Object({ ...mediaSource, voice: Type.Optional(Type.Boolean()), ...ReplyTo }, strict);
const DocumentMessageBody = Type.Object({ ...mediaSource, caption: Type.Optional(Text(1024)), filename: Type.Optional(Text(240)), ...ReplyTo }, strict);
const StickerMessageBody = Type.Object({ ...mediaSource, ...ReplyTo }, strict);

// Text first: a coordinate given as text is forwarded as text (as in Meta's example), not coerced to a number.
const Coordinate = (min: number, max: number) => Type.Union([Type.String({ pattern: '^-?\\d{1,3}(\\.\\d+)?$' }), Type.Number({ minimum: min, maximum: max })]);
const LocationMessageBody = Type.Object(
  { latitude: Coordinate(-90, 90), longitude: Coordinate(-180, 180), name: Type.Optional(Text(1000)), address: Type.Optional(Text(1000)), ...ReplyTo },
  strict,
);

const Typed = (fields: Record<string, TSchema>) => Type.Array(Type.Object({ ...fields, type: Type.Optional(Text(100)) }, strict), { maxItems: 20 });
const ContactCard = Type.Object(
  {
    name: Type.Object(
      {
        formatted_name: Text(500),
        first_name: Type.Optional(Text(200)),
        last_name: Type.Optional(Text(200)),
        middle_name: Type.Optional(Text(200)),
        suffix: Type.Optional(Text(50)),
        prefix: Type.Optional(Text(50)),
      },
      strict,
    ),
    addresses: Type.Optional(
      Typed({
        street: Type.Optional(Text(500)),
        city: Type.Optional(Text(200)),
        state: Type.Optional(Text(200)),
        zip: Type.Optional(Text(50)),
        country: Type.Optional(Text(200)),
        country_code: Type.Optional(Text(10)),
      }),
    ),
    birthday: Type.Optional(Type.String({ format: 'date' })),
    emails: Type.Optional(Typed({ email: Text(320) })),
    org: Type.Optional(Type.Object({ company: Type.Optional(Text(500)), department: Type.Optional(Text(500)), title: Type.Optional(Text(500)) }, strict)),
    phones: Type.Optional(Typed({ phone: Text(50), wa_id: Type.Optional(Text(50)) })),
    urls: Type.Optional(Typed({ url: Text(2000) })),
  },
  strict,
);
const ContactsMessageBody = Type.Object({ contacts: Type.Array(ContactCard, { minItems: 1, maxItems: 10 }), ...ReplyTo }, strict);

const ReactionMessageBody = Type.Object(
  {
    message_id: IdOf('Our id of the message reacted to (same conversation)'),
    emoji: Type.String({ maxLength: 16, description: 'One emoji; empty removes the reaction' }),
  },
  strict,
);

const InteractiveText = (max: number) => Type.Object({ text: Text(max) }, strict);
const MediaRef = Type.Object({ id: Type.Optional(Text(200)), link: Type.Optional(Url) }, strict);
const Header = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Text(60) }, strict),
  Type.Object({ type: Type.Literal('image'), image: MediaRef }, strict),
  Type.Object({ type: Type.Literal('video'), video: MediaRef }, strict),
  Type.Object({ type: Type.Literal('document'), document: MediaRef }, strict),
]);
const ImageHeader = Type.Object({ type: Type.Literal('image'), image: MediaRef }, strict);
const ButtonMessageBody = Type.Object(
  {
    header: Type.Optional(Header),
    body: InteractiveText(1024),
    footer: Type.Optional(InteractiveText(60)),
    action: Type.Object(
      {
        buttons: Type.Array(Type.Object({ type: Type.Literal('reply'), reply: Type.Object({ id: Text(256), title: Text(20) }, strict) }, strict), {
          minItems: 1,
          maxItems: 3,
        }),
      },
      strict,
    ),
    ...ReplyTo,
  },
  strict,
);
const ListMessageBody = Type.Object(
  {
    header: Type.Optional(Type.Object({ type: Type.Literal('text'), text: Text(60) }, strict)),
    body: InteractiveText(4096),
    footer: Type.Optional(InteractiveText(60)),
    action: Type.Object(
      {
        button: Text(20),
        sections: Type.Array(
          Type.Object(
            {
              title: Type.Optional(Text(24)),
              rows: Type.Array(Type.Object({ id: Text(200), title: Text(24), description: Type.Optional(Text(72)) }, strict), { minItems: 1, maxItems: 10 }),
            },
            strict,
          ),
          { minItems: 1, maxItems: 10 },
        ),
      },
      strict,
    ),
    ...ReplyTo,
  },
  strict,
);
const CtaAction = Type.Object({ name: Type.Literal('cta_url'), parameters: Type.Object({ display_text: Text(20), url: Url }, strict) }, strict);
const CtaUrlMessageBody = Type.Object(
  { header: Type.Optional(Header), body: InteractiveText(1024), footer: Type.Optional(InteractiveText(60)), action: CtaAction, ...ReplyTo },
  strict,
);
const CtaUrlImageMessageBody = Type.Object(
  { header: ImageHeader, body: InteractiveText(1024), footer: Type.Optional(InteractiveText(60)), action: CtaAction, ...ReplyTo },
  strict,
);

/** Every kind the sending endpoints accept: the path suffix → its body schema. */
export const OUTBOUND_KINDS = {
  text: TextMessageBody,
  image: ImageMessageBody,
  video: VideoMessageBody,
  audio: AudioMessageBody,
  document: DocumentMessageBody,
  sticker: StickerMessageBody,
  location: LocationMessageBody,
  contacts: ContactsMessageBody,
  reaction: ReactionMessageBody,
  template: TemplateMessageBody,
  'interactive/button': ButtonMessageBody,
  'interactive/list': ListMessageBody,
  'interactive/cta-url': CtaUrlMessageBody,
  'interactive/cta-url-image': CtaUrlImageMessageBody,
} as const;
export type OutboundKind = keyof typeof OUTBOUND_KINDS;
type OutboundBody<K extends OutboundKind> = Static<(typeof OUTBOUND_KINDS)[K]>;
export type AnyOutboundBody = { [K in OutboundKind]: { kind: K; body: OutboundBody<K> } }[OutboundKind];
