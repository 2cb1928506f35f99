import { Type, type Static } from 'typebox';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';

const Timestamp = Type.String({ format: 'date-time' });

export const ApiKeyResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** The secret's first characters, to tell keys apart (the secret itself is shown once, at creation). */
  prefix: Type.String({ examples: ['crm_Xy3kQ9ab'] }),
  permissions: Type.Array(Type.String(), { description: 'Codes granted, implications included; in effect only while the creator holds them too' }),
  status: StringEnum(['active', 'expired', 'revoked']),
  expires_at: NullableString({ format: 'date-time' }),
  last_used_at: NullableString({ format: 'date-time', description: 'Updated at most once a minute' }),
  revoked_at: NullableString({ format: 'date-time' }),
  created_by_user_id: Type.Integer(),
  created_at: Timestamp,
});
export type ApiKeyResponse = Static<typeof ApiKeyResponse>;
export const ApiKeyListResponse = Type.Object({ data: Type.Array(ApiKeyResponse) });
export const CreatedApiKeyResponse = Type.Object({
  ...ApiKeyResponse.properties,
  secret: Type.String({ description: 'The key, shown this once: `crm_` and 256 random bits (base64url). Send it as `Authorization: Bearer <secret>`.' }),
});
export type CreatedApiKeyResponse = Static<typeof CreatedApiKeyResponse>;

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    permissions: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 200,
      uniqueItems: true,
      description: 'Permission codes of the catalogue, each held by the creator (implied codes are added and must be held too)',
    }),
    expires_at: Type.Optional(
      NullableString({
        format: 'date-time',
        description: 'At most one year ahead; default 90 days. `null`: never, only where the entity policy allows keys without expiry.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ApiKeyPolicyBody = Type.Object({ allow_non_expiring: Type.Boolean() }, { additionalProperties: false });
export type ApiKeyPolicyBody = Static<typeof ApiKeyPolicyBody>;
