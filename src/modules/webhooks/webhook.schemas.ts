import { Type, type Static } from 'typebox';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';

const Timestamp = Type.String({ format: 'date-time' });
const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'https only; private, loopback and reserved addresses are refused' });
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description: 'Event types of GET /api/webhooks/event-types',
});

export const EndpointResponse = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  description: NullableString(),
  event_types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: NullableString({ description: '`gone` (410), `failing` (5 days failing) or `manual`' }),
  failing_since: NullableString({ format: 'date-time' }),
  previous_secret_expires_at: NullableString({
    format: 'date-time',
    description: 'Until then deliveries are also signed with the secret before the last rotation',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type EndpointResponse = Static<typeof EndpointResponse>;
export const EndpointListResponse = Type.Object({ data: Type.Array(EndpointResponse) });
export const CreatedEndpointResponse = Type.Object({
  ...EndpointResponse.properties,
  secret: Type.String({ description: 'The signing secret (`whsec_...`), shown here and on rotation only' }),
});

export const CreateEndpointBody = Type.Object(
  { url: Url, event_types: EventTypes, description: Type.Optional(NullableString({ maxLength: 200 })) },
  { additionalProperties: false },
);
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;
export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(NullableString({ maxLength: 200 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

export const RotatedSecretResponse = Type.Object({ secret: Type.String(), previous_secret_expires_at: Timestamp });

export const DeliveryResponse = Type.Object({
  id: Type.String({ description: 'The `webhook-id`, the same on every attempt and replay' }),
  event_type: Type.String(),
  status: StringEnum(['pending', 'succeeded', 'failed']),
  attempts: Type.Array(
    Type.Object({
      attempted_at: Timestamp,
      status: Type.Union([Type.Integer(), Type.Null()]),
      latency_ms: Type.Integer(),
      response_excerpt: NullableString({ description: 'The first 1 000 characters of the answer (at most 64 KB is read)' }),
      error: NullableString(),
    }),
  ),
  next_attempt_at: NullableString({ format: 'date-time' }),
  created_at: Timestamp,
  delivered_at: NullableString({ format: 'date-time' }),
  payload: Type.Object({}, { additionalProperties: true, description: '`{ type, version, timestamp, data }`: the body sent' }),
});
export type DeliveryResponse = Static<typeof DeliveryResponse>;
export const DeliveryListResponse = Type.Object({ data: Type.Array(DeliveryResponse) });
export const DeliveryQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  before: Type.Optional(Type.String({ format: 'date-time', description: 'Deliveries made before this instant (the previous page’s last `created_at`)' })),
});
export const DeliveryParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  delivery_id: Type.String({ pattern: '^msg_[0-9a-f]{32}$' }),
});
export const ReplayBody = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Every delivery made since this instant (at most 10 000)' }) },
  { additionalProperties: false },
);
export const ReplayResponse = Type.Object({ replayed: Type.Integer() });
export const EventTypesResponse = Type.Object({
  version: Type.Integer({ description: 'The payload envelope version' }),
  data: Type.Array(Type.Object({ type: Type.String(), description: Type.String() })),
});
