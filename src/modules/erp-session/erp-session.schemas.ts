import { Type, type Static } from 'typebox';

export const SyncBody = Type.Object(
  {
    erp_access_token: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'OAuth access token from the ERP provider; when absent the stored credentials are used' }),
    ),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBody>;
