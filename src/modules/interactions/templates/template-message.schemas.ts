/**
 * The body of a template message (`POST /interactions/conversations/:id/messages/template`): the WhatsApp
 * Cloud API `template` object, its components and parameters (docs/api.md "Sending messages").
 */
import { Type, type Static } from 'typebox';

const strict = { additionalProperties: false } as const;
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Url = Type.String({ format: 'uri', maxLength: 2000, pattern: '^https?://' });

const TemplateParameter = Type.Object(
  {
    type: Type.Union(['text', 'currency', 'date_time', 'image', 'video', 'document', 'payload', 'coupon_code'].map((t) => Type.Literal(t))),
    parameter_name: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_]*$', maxLength: 100 })),
    text: Type.Optional(Type.String({ maxLength: 32768 })),
    payload: Type.Optional(Type.String({ maxLength: 1000 })),
    coupon_code: Type.Optional(Type.String({ maxLength: 20 })),
    currency: Type.Optional(Type.Object({ fallback_value: Text(200), code: Type.String({ pattern: '^[A-Z]{3}$' }), amount_1000: Type.Integer() }, strict)),
    // The Cloud API's date_time object, forwarded unchanged (the platform localizes it; fallback_value otherwise).
    date_time: Type.Optional(
      Type.Object(
        {
          fallback_value: Text(200),
          calendar: Type.Optional(Type.Union([Type.Literal('GREGORIAN'), Type.Literal('SOLAR_HIJRI')])),
          year: Type.Optional(Type.Integer({ minimum: 1, maximum: 9999 })),
          month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
          day_of_month: Type.Optional(Type.Integer({ minimum: 1, maximum: 31 })),
          day_of_week: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, description: '1 = Monday .. 7 = Sunday' })),
          hour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23 })),
          minute: Type.Optional(Type.Integer({ minimum: 0, maximum: 59 })),
        },
        strict,
      ),
    ),
    image: Type.Optional(Type.Object({ id: Type.Optional(Text(200)), link: Type.Optional(Url) }, strict)),
    video: Type.Optional(Type.Object({ id: Type.Optional(Text(200)), link: Type.Optional(Url) }, strict)),
    document: Type.Optional(Type.Object({ id: Type.Optional(Text(200)), link: Type.Optional(Url), filename: Type.Optional(Text(240)) }, strict)),
  },
  strict,
);
const TemplateComponent = Type.Object(
  {
    type: Type.Union([Type.Literal('header'), Type.Literal('body'), Type.Literal('button')]),
    sub_type: Type.Optional(Type.Union(['quick_reply', 'url', 'copy_code', 'flow'].map((t) => Type.Literal(t)))),
    index: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 9 }), Type.String({ pattern: '^[0-9]$' })])),
    parameters: Type.Array(TemplateParameter, { maxItems: 100 }),
  },
  strict,
);
export const TemplateMessageBody = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z0-9_]{1,512}$' }),
    language: Type.Object({ code: Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2})?$' }), policy: Type.Optional(Type.Literal('deterministic')) }, strict),
    components: Type.Optional(Type.Array(TemplateComponent, { maxItems: 20 })),
  },
  strict,
);
export type TemplateMessageBody = Static<typeof TemplateMessageBody>;
