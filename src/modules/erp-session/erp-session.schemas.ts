/**
 * The ERP session snapshot returned to web clients (SPEC "ERP session snapshot"). Never carries the raw
 * GraphQL JWT or the API key. Timestamps are ISO 8601 strings (decision: docs/decisions.md).
 */
import { Type, type Static } from 'typebox';
import { problemSchemaRef } from '../../platform/http/openapi.js';

const ErpSessionStatus = Type.Union([
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

/**
 * `$id` of the problem body of the ERP session errors (428 `erp_session_required`, 409
 * `erp_entity_mismatch`, 401 `erp_session_invalid`; erp-session.errors.ts), shared by every ERP-backed route.
 */
export const ERP_SESSION_PROBLEM_ID = 'ErpSessionProblem';

/**
 * A problem body (`allOf` the shared `Problem`) plus the scope's ERP session snapshot and where to
 * reconcile it (SPEC "Errors" 2-3); both present on the ERP session errors, absent on the operation's other
 * errors (a missing CRM token's 401).
 */
export const ErpSessionProblem = Type.Intersect(
  [
    problemSchemaRef(),
    Type.Object(
      {
        erp_session: Type.Optional(
          Type.Object(ErpSessionSnapshot.properties, { description: "The ERP session of the caller's scope, as GET /api/auth/erp-session answers it" }),
        ),
        reconcile: Type.Optional(
          Type.Object(
            {
              sync: Type.String({ description: 'The operation that synchronizes the ERP session (`POST /api/auth/erp-session/sync`)' }),
              snapshot: Type.String({ description: 'The operation that reads it again (`GET /api/auth/erp-session`)' }),
            },
            { description: 'How the client reconciles: sync, then re-read; the CRM token stays valid' },
          ),
        ),
      },
      { additionalProperties: true },
    ),
  ],
  { $id: ERP_SESSION_PROBLEM_ID, description: 'RFC 9457 problem details of an ERP session error (application/problem+json)' },
);
