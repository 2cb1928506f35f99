/**
 * The request bodies `POST /api/interactions/webhooks/communications` accepts, for the OpenAPI document
 * only: the route parses its body itself (raw bytes for the signature, then normalize.ts), so these
 * schemas describe it without validating it, and a payload outside them answers 400 `malformed_payload`.
 */
import { Type } from 'typebox';
import { CanonicalEventSchema } from '../model/index.js';

/** One Meta webhook envelope: the app's subscription delivers `entry[]` of one product. */
function metaEnvelope(object: string, description: string, entryMember: 'changes' | 'messaging') {
  return Type.Object(
    {
      object: Type.Literal(object),
      entry: Type.Array(
        Type.Object(
          {
            id: Type.String({ description: 'The WhatsApp Business Account, page or Instagram account id' }),
            time: Type.Optional(Type.Integer({ description: 'Unix time, seconds or milliseconds' })),
            [entryMember]: Type.Array(
              Type.Object(
                {},
                {
                  additionalProperties: true,
                  description: entryMember === 'changes' ? '`{ field, value }` as the Cloud API sends it' : 'A messaging event as Meta sends it',
                },
              ),
            ),
          },
          { additionalProperties: true },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: true, description },
  );
}

/** Either a Meta envelope (WhatsApp Cloud API, Messenger, Instagram) or our canonical format. */
export const WebhookBody = Type.Union(
  [
    metaEnvelope('whatsapp_business_account', 'WhatsApp Cloud API: messages, statuses, errors and template reviews in `entry[].changes[].value`', 'changes'),
    metaEnvelope('page', 'Messenger: `entry[].messaging[]`', 'messaging'),
    metaEnvelope('instagram', 'Instagram messaging: `entry[].messaging[]`', 'messaging'),
    Type.Object(
      {
        format: Type.Literal('canonical'),
        events: Type.Array(CanonicalEventSchema, { maxItems: 1000, description: 'Canonical events (docs/api/interactions.md "Webhook")' }),
      },
      { additionalProperties: false, description: 'The canonical format: events already normalized by the communications service' },
    ),
  ],
  { description: 'A Meta webhook envelope or the canonical format; COMMUNICATIONS_WEBHOOK_APP_SECRET makes X-Hub-Signature-256 required' },
);
