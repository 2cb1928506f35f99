/** Bodies and answers of `/interactions/canned-replies` (issue 49, "Canned replies"). */
import { Type, type Static } from 'typebox';

const Scope = Type.Union([Type.Literal('personal'), Type.Literal('queue'), Type.Literal('entity')], {
  description: "`personal`: the caller's own; `queue`: the members of `queue_id`; `entity`: every member of the entity",
});
const Shortcode = Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_-]+$', description: 'What the agent types after `/`; unique in its scope' });
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Body = Type.String({
  maxLength: 4096,
  description:
    "Plain text; may name `{{contact.name}}`, `{{contact.phone}}`, `{{contact.email}}`, `{{lead.name}}`, `{{lead.erp_id}}`, `{{lead.email}}`, `{{lead.phone}}`, `{{lead.tax_id}}`, `{{agent.name}}`, `{{entity.name}}`, custom fields by id (`{{contact.custom.12}}`: a contact field of the entity; `{{group.custom.7}}`: a group field, read on the lead's group; not image, video or PDF fields) and prompted `{{?label}}`",
});
const Attachments = Type.Array(Type.Integer({ minimum: 1 }), {
  maxItems: 10,
  uniqueItems: true,
  description: 'Media objects of the entity (image, document, video or audio), each sent as a message of its own',
});
const TemplateFallback = Type.Union(
  [
    Type.Object(
      { name: Type.String({ pattern: '^[a-z0-9_]{1,512}$' }), language: Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$' }) },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: "An approved template (without parameters) sent instead outside WhatsApp's service window" },
);

export const CreateCannedReplyBody = Type.Object(
  {
    shortcode: Shortcode,
    title: Title,
    body: Body,
    scope: Scope,
    queue_id: Type.Optional(Type.Integer({ minimum: 1, description: '`queue` scope only, and required by it' })),
    attachments: Type.Optional(Attachments),
    template: Type.Optional(TemplateFallback),
  },
  { additionalProperties: false },
);
export type CreateCannedReplyBody = Static<typeof CreateCannedReplyBody>;

export const UpdateCannedReplyBody = Type.Object(
  {
    shortcode: Type.Optional(Shortcode),
    title: Type.Optional(Title),
    body: Type.Optional(Body),
    attachments: Type.Optional(Attachments),
    template: Type.Optional(TemplateFallback),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCannedReplyBody = Static<typeof UpdateCannedReplyBody>;

export const CannedReplyResponse = Type.Object({
  id: Type.Integer(),
  shortcode: Type.String(),
  title: Type.String(),
  body: Type.String(),
  scope: Scope,
  queue_id: Type.Union([Type.Integer(), Type.Null()]),
  owner_employee_id: Type.Union([Type.Integer(), Type.Null()]),
  attachments: Type.Array(Type.Integer()),
  template: Type.Union([Type.Object({ name: Type.String(), language: Type.String() }), Type.Null()]),
  variables: Type.Array(Type.String(), { description: 'The variables the body names, custom fields included (`contact.custom.12`)' }),
  prompts: Type.Array(Type.String(), { description: 'The prompted placeholders the body names (`{{?label}}`), each to ask the agent' }),
  usage_count: Type.Integer({ description: 'Sends of this reply by anyone' }),
  my_usage_count: Type.Integer({ description: "The caller's sends of it" }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type CannedReplyResponse = Static<typeof CannedReplyResponse>;

export const CannedReplyListQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'A shortcode prefix (with or without `/`) or words of the title and body, accents and case ignored; ranked: shortcode, then title, then body',
      }),
    ),
    scope: Type.Optional(Scope),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);
export type CannedReplyListQuery = Static<typeof CannedReplyListQuery>;

export const CannedReplyListResponse = Type.Object({ data: Type.Array(CannedReplyResponse) });

export const RenderCannedReplyBody = Type.Object(
  {
    conversation_id: Type.Integer({ minimum: 1 }),
    answers: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 }), { description: 'The prompted placeholders, by label' }),
    ),
  },
  { additionalProperties: false },
);
export type RenderCannedReplyBody = Static<typeof RenderCannedReplyBody>;

export const RenderedCannedReply = Type.Object({
  text: Type.String({ description: 'The body filled; what is missing is left as written' }),
  missing: Type.Array(Type.String(), {
    description: 'Variables without a value for this conversation (the contact has no e-mail, a custom field is empty or was deleted, ...)',
  }),
  prompts: Type.Array(Type.String(), { description: 'Prompted placeholders not answered yet' }),
  attachments: Type.Array(Type.Object({ media_id: Type.Integer(), kind: Type.String() })),
  service_window_open: Type.Boolean(),
  sends: Type.Union([Type.Literal('text'), Type.Literal('template'), Type.Literal('nothing')], {
    description: '`template`: the window is closed and the reply names a template, which is sent instead; `nothing`: the window is closed and it names none',
  }),
  template: Type.Union([Type.Object({ name: Type.String(), language: Type.String() }), Type.Null()]),
});
export type RenderedCannedReply = Static<typeof RenderedCannedReply>;
