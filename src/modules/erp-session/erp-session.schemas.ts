/**
 * The ERP session snapshot returned to web clients (SPEC "ERP session snapshot"). Never carries the raw
 * GraphQL JWT or the API key. Timestamps are ISO 8601 strings (decision: docs/decisions.md).
 */
import { Type, type Static } from 'typebox';

export const ErpSessionStatus = Type.Union([
  Type.Literal('ready'),
  Type.Literal('expiring_soon'),
  Type.Literal('missing'),
  Type.Literal('expired'),
  Type.Literal('entity_mismatch'),
]);

const NullableInt = Type.Union([Type.Integer(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const ErpSessionSnapshot = Type.Object(
  {
    status: ErpSessionStatus,
    entity_id: Type.Integer(),
    client_kind: Type.String(),
    selected_entity_id: NullableInt,
    selected_entity_name: NullableString,
    selected_entity_logo: NullableString,
    erp_user_id: NullableInt,
    erp_employee_id: NullableInt,
    graphql_jwt_expires_at: NullableTime,
    refresh_after: NullableTime,
    checked_at: NullableTime,
    synced_at: NullableTime,
  },
  { $id: 'ErpSessionSnapshot' },
);
export type ErpSessionSnapshot = Static<typeof ErpSessionSnapshot>;

/** The snapshot of a scope that has no stored ERP session. */
export function missingErpSession(entityId: number, clientKind: string): ErpSessionSnapshot {
  return {
    status: 'missing',
    entity_id: entityId,
    client_kind: clientKind,
    selected_entity_id: null,
    selected_entity_name: null,
    selected_entity_logo: null,
    erp_user_id: null,
    erp_employee_id: null,
    graphql_jwt_expires_at: null,
    refresh_after: null,
    checked_at: null,
    synced_at: null,
  };
}

export const SyncBody = Type.Object(
  {
    erp_access_token: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'OAuth access token from the ERP provider; when absent the stored credentials are used' }),
    ),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBody>;
