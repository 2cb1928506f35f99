/**
 * Message templates (docs/api/interactions.md "Templates"): the definition follows WhatsApp's template
 * model (`HEADER`, `BODY`, `FOOTER`, `BUTTONS` components, positional `{{1}}` or named `{{first_name}}`
 * parameters with examples).
 */
import { Type, type Static } from 'typebox';
import { NullableString } from '../../../platform/http/schema-types.js';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '../model/index.js';

const strict = { additionalProperties: false } as const;
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const NamedExample = Type.Array(Type.Object({ param_name: Type.String({ pattern: '^[a-z_][a-z0-9_]*$', maxLength: 100 }), example: Text(1000) }, strict), {
  minItems: 1,
  maxItems: 100,
});

const TemplateHeader = Type.Object(
  {
    type: Type.Literal('HEADER'),
    format: Type.Union([Type.Literal('TEXT'), Type.Literal('IMAGE'), Type.Literal('VIDEO'), Type.Literal('DOCUMENT')]),
    text: Type.Optional(Text(60)),
    example: Type.Optional(
      Type.Object(
        {
          header_text: Type.Optional(Type.Array(Text(60), { minItems: 1, maxItems: 1 })),
          header_text_named_params: Type.Optional(NamedExample),
          header_handle: Type.Optional(Type.Array(Text(2000), { minItems: 1, maxItems: 1 })),
        },
        strict,
      ),
    ),
  },
  strict,
);
const TemplateBody = Type.Object(
  {
    type: Type.Literal('BODY'),
    text: Text(1024),
    example: Type.Optional(
      Type.Object(
        { body_text: Type.Optional(Type.Array(Type.Array(Text(1000)), { minItems: 1, maxItems: 1 })), body_text_named_params: Type.Optional(NamedExample) },
        strict,
      ),
    ),
  },
  strict,
);
const TemplateFooter = Type.Object({ type: Type.Literal('FOOTER'), text: Text(60) }, strict);
const TemplateButton = Type.Object(
  {
    type: Type.Union([Type.Literal('QUICK_REPLY'), Type.Literal('URL'), Type.Literal('PHONE_NUMBER'), Type.Literal('COPY_CODE')]),
    text: Type.Optional(Text(25)),
    url: Type.Optional(Type.String({ maxLength: 2000, pattern: '^https://' })),
    phone_number: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{6,20}$' })),
    example: Type.Optional(Type.Array(Text(2000), { minItems: 1, maxItems: 1 })),
  },
  strict,
);
const TemplateButtons = Type.Object({ type: Type.Literal('BUTTONS'), buttons: Type.Array(TemplateButton, { minItems: 1, maxItems: 10 }) }, strict);
export const TemplateDefinitionComponent = Type.Union([TemplateHeader, TemplateBody, TemplateFooter, TemplateButtons]);
export type TemplateDefinitionComponent = Static<typeof TemplateDefinitionComponent>;

export const TemplateCreateBody = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z0-9_]{1,512}$', description: 'Lowercase letters, digits and underscores' }),
    language: Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$', description: 'e.g. es, es_MX, en_US' }),
    category: Type.Enum(TEMPLATE_CATEGORIES),
    parameter_format: Type.Optional(Type.Union([Type.Literal('positional'), Type.Literal('named')], { default: 'positional' })),
    components: Type.Array(TemplateDefinitionComponent, { minItems: 1, maxItems: 4 }),
  },
  strict,
);
export type TemplateCreateBody = Static<typeof TemplateCreateBody>;
export const TemplateUpdateBody = Type.Object(
  { category: Type.Optional(Type.Enum(TEMPLATE_CATEGORIES)), components: Type.Optional(Type.Array(TemplateDefinitionComponent, { minItems: 1, maxItems: 4 })) },
  strict,
);
export type TemplateUpdateBody = Static<typeof TemplateUpdateBody>;

export const TemplateResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  language: Type.String(),
  category: Type.Enum(TEMPLATE_CATEGORIES),
  parameter_format: Type.Union([Type.Literal('positional'), Type.Literal('named')]),
  components: Type.Array(Type.Unknown()),
  status: Type.Enum(TEMPLATE_STATUSES),
  provider_template_id: NullableString(),
  rejection_reason: NullableString(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type TemplateResponse = Static<typeof TemplateResponse>;
export const TemplateListQuery = Type.Object({
  status: Type.Optional(Type.Enum(TEMPLATE_STATUSES)),
  sync: Type.Optional(Type.Boolean({ description: 'Pull review statuses from the communications service first' })),
});
export const TemplateListResponse = Type.Object({ data: Type.Array(TemplateResponse) });
