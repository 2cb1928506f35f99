import { Type, type Static } from 'typebox';
import { Id } from '../../platform/http/ids.js';
import { pageOf, pageQuery } from '../../platform/http/pagination.js';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';

const ActorKind = StringEnum(['user', 'api_key', 'workflow', 'system']);

export const AuditEntryResponse = Type.Object({
  id: Type.Integer(),
  seq: Type.Integer({ description: "Position in the entity's chain, from 1" }),
  occurred_at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    kind: ActorKind,
    user_id: Type.Union([Type.Integer(), Type.Null()]),
    employee_id: Type.Union([Type.Integer(), Type.Null()]),
    ref: Type.Union([Type.Integer(), Type.Null()], { description: "The API key's or workflow's id" }),
  }),
  action: Type.String({ description: 'Dotted `<subject>.<verb>` (docs/api/audit.md)' }),
  target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()]),
  diff: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: '`before` and `after` of the changed fields (secrets `[redacted]`), and `details` of the action',
  }),
  client_address: NullableString(),
  request_id: NullableString(),
  hash: Type.String({ description: 'sha256 (hex) chaining the entry to the one before it' }),
});
export type AuditEntryResponse = Static<typeof AuditEntryResponse>;
export const AuditEntryPage = pageOf(AuditEntryResponse);

const filters = {
  actor_kind: Type.Optional(ActorKind),
  actor_user_id: Type.Optional(Id),
  actor_employee_id: Type.Optional(Id),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An action (`role.update`), or a prefix ending in a dot (`role.`)' })),
  target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive' })),
};
export const AuditListQuery = Type.Object({ ...filters, ...pageQuery(50) }, { additionalProperties: false });
export type AuditListQuery = Static<typeof AuditListQuery>;
export const AuditCsvQuery = Type.Object(filters, { additionalProperties: false });
export type AuditFilterQuery = Static<typeof AuditCsvQuery>;

export const AuditRetention = Type.Object(
  { days: Type.Integer({ minimum: 30, maximum: 3650, description: 'Days entries are kept (default 730)' }) },
  { additionalProperties: false },
);
