/** Schemas of the website chat (issue 32): the staff's web settings, and the visitor API under `/api/widget`. */
import { Type, type Static } from 'typebox';
import { Id } from '../../../../../platform/http/ids.js';
import { VisitorMessage } from '../widget/index.js';

const Requirement = Type.Union([Type.Literal('off'), Type.Literal('optional'), Type.Literal('required')]);
const PrechatFields = Type.Object(
  { name: Requirement, email: Requirement, phone: Requirement },
  { additionalProperties: false, description: 'Pre-chat form: each field off, asked (optional) or required' },
);
const Appearance = Type.Object(
  {
    color: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Launcher and visitor bubbles, #rrggbb' }),
    position: Type.Union([Type.Literal('right'), Type.Literal('left')]),
  },
  { additionalProperties: false },
);
const ShortText = (description: string) => Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description });
const Origin = Type.String({ maxLength: 200, pattern: '^https?://[^/?#\\s]+$', description: 'scheme://host[:port], no path' });

export const WebSettingsResponse = Type.Object({
  entity_channel_account_id: Type.Integer(),
  website_token: Type.String({ description: 'Public: the one the embed snippet carries' }),
  allowed_origins: Type.Array(Type.String(), { description: 'Pages allowed to use the widget (besides this service own demo page)' }),
  greeting_text: Type.Union([Type.String(), Type.Null()]),
  away_text: Type.Union([Type.String(), Type.Null()]),
  prechat_fields: PrechatFields,
  appearance: Appearance,
  business_hours_text: Type.Union([Type.String(), Type.Null()]),
  identity_secret: Type.Object({ configured: Type.Boolean(), last4: Type.Union([Type.String(), Type.Null()]) }),
  embed_snippet: Type.String({ description: 'The script tag (HTML) a site embeds' }),
});
export type WebSettingsResponse = Static<typeof WebSettingsResponse>;

export const UpdateWebSettingsBody = Type.Object(
  {
    allowed_origins: Type.Optional(Type.Array(Origin, { maxItems: 50 })),
    greeting_text: Type.Optional(ShortText('Shown when the widget opens')),
    away_text: Type.Optional(ShortText('Shown beside the business hours')),
    prechat_fields: Type.Optional(PrechatFields),
    appearance: Type.Optional(Appearance),
    business_hours_text: Type.Optional(ShortText('Business hours as the visitor reads them')),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebSettingsBody = Static<typeof UpdateWebSettingsBody>;

export const IdentitySecretResponse = Type.Object({
  identity_secret: Type.String({ description: 'Shown once: HMAC-SHA256 key of identity verification' }),
  last4: Type.String(),
});

export const WidgetParams = Type.Object({ website_token: Type.String({ minLength: 1, maxLength: 100 }) });

export const WidgetConfigResponse = Type.Object({
  display_name: Type.String(),
  greeting_text: Type.Union([Type.String(), Type.Null()]),
  away_text: Type.Union([Type.String(), Type.Null()]),
  business_hours_text: Type.Union([Type.String(), Type.Null()]),
  prechat_fields: PrechatFields,
  appearance: Appearance,
  max_text_length: Type.Integer(),
  attachments: Type.Object(
    {
      accept: Type.Array(Type.String(), { description: 'Content types a visitor may attach (images and documents)' }),
      max_bytes: Type.Object({ image: Type.Integer(), document: Type.Integer() }, { description: 'Largest attachment per kind, in bytes' }),
    },
    { description: "What the widget's file picker offers, so that it never offers what the service refuses" },
  ),
});
export type WidgetConfigResponse = Static<typeof WidgetConfigResponse>;

export const StartSessionBody = Type.Object(
  {
    visitor_token: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'A previous visitor token: resumes that visitor (rotated)' })),
    identity: Type.Optional(
      Type.Object(
        {
          identifier: Type.String({ minLength: 1, maxLength: 128, description: "The site's id of its logged-in customer" }),
          timestamp: Type.Integer({
            minimum: 0,
            maximum: 99_999_999_999,
            description: 'When the site signed, in Unix seconds; the signature holds for WIDGET_IDENTITY_MAX_AGE_SECONDS (24 h) after it',
          }),
          signature: Type.String({
            minLength: 64,
            maxLength: 64,
            pattern: '^[0-9a-fA-F]{64}$',
            description: 'hex HMAC-SHA256(identity secret, "<timestamp>.<identifier>")',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    prechat: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
          email: Type.Optional(Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' })),
          phone: Type.Optional(Type.String({ minLength: 4, maxLength: 32, pattern: '^[+0-9 ()-]+$' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type StartSessionBody = Static<typeof StartSessionBody>;

const Visitor = Type.Object({
  id: Type.Integer(),
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  verified: Type.Boolean(),
});

export const SessionResponse = Type.Object({
  visitor_token: Type.String(),
  expires_in: Type.Integer({ description: 'Seconds' }),
  visitor: Visitor,
  conversation_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Null until the first message opens it' }),
  widget: WidgetConfigResponse,
});
export type SessionResponse = Static<typeof SessionResponse>;

export const HistoryQuery = Type.Object({
  before: Type.Optional(Id),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
});
export type HistoryQuery = Static<typeof HistoryQuery>;
export const HistoryResponse = Type.Object({ conversation_id: Type.Union([Type.Integer(), Type.Null()]), data: Type.Array(VisitorMessage) });

export const SendBody = Type.Object(
  {
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 65536, description: 'Plain text, at most max_text_length characters' })),
    attachment: Type.Optional(Type.Object({ media_id: Id, upload_ticket: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false })),
    client_message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'Makes a repeated send safe' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SendBody = Static<typeof SendBody>;
export const SendResponse = Type.Object({ message_id: Type.String({ description: 'The external id of the message' }), duplicate: Type.Boolean() });

export const UploadBody = Type.Object(
  {
    file_name: Type.String({ minLength: 1, maxLength: 255 }),
    content_type: Type.String({ minLength: 3, maxLength: 150, pattern: '^[a-zA-Z0-9.+-]+/[a-zA-Z0-9.+-]+$' }),
    size: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type UploadBody = Static<typeof UploadBody>;
export const UploadResponse = Type.Object({
  media_id: Type.Integer(),
  upload_ticket: Type.String(),
  upload: Type.Object({ url: Type.String(), method: Type.String(), headers: Type.Record(Type.String(), Type.String()) }),
});

export const ReadBody = Type.Object({ message_id: Id }, { additionalProperties: false });
export const TypingBody = Type.Object({ typing: Type.Boolean() }, { additionalProperties: false });

/** `interaction.visitor.typing` (agents' sockets): the visitor of a web conversation types, or stopped. */
export const VisitorTyping = Type.Object({ conversation_id: Type.Integer(), external_chat_id: Type.String(), typing: Type.Boolean() });
