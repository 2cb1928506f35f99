/**
 * The request bodies `POST /api/interactions/webhooks/communications` accepts, for the OpenAPI document
 * only: the route parses its body itself (raw bytes for the signature, then normalize.ts), so these
 * schemas describe it without validating it, and a payload outside them answers 400 `malformed_payload`.
 */
import { Type } from 'typebox';
import { CanonicalEventSchema } from '../model/index.js';
import { PAYLOAD_ENVELOPES } from '../channels/index.js';

/** Either a channel's platform payload (a Meta envelope: WhatsApp Cloud API, Messenger, Instagram) or our canonical format. */
export const WebhookBody = Type.Union(
  [
    ...PAYLOAD_ENVELOPES,
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
