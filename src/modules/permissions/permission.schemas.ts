import { Type, type Static } from 'typebox';
import { PERMISSIONS, PERMISSION_MODULES } from '../../platform/permissions/catalog.js';
import { NullableObject } from '../../platform/http/schema-types.js';

const PermissionItem = Type.Object({
  code: Type.String(),
  module: Type.String(),
  label: Type.String(),
  implies: Type.Array(Type.String()),
});

export const PermissionSchemaResponse = Type.Object({
  schemaVersion: Type.String(),
  modules: Type.Array(Type.Object({ key: Type.String(), label: Type.String(), permissions: Type.Array(PermissionItem) })),
});
export type PermissionSchemaResponse = Static<typeof PermissionSchemaResponse>;

export const MeQuery = Type.Object({
  explain: Type.Optional(Type.Boolean({ description: 'Add, per code, why the caller holds it, and the codes removed by DENY overrides' })),
});

const GrantReason = Type.Union([
  Type.Object({ source: Type.Literal('super_admin'), subscription_id: Type.Integer() }),
  Type.Object({ source: Type.Literal('role'), role_id: Type.Integer(), role_name: Type.String() }),
  Type.Object({ source: Type.Literal('allow_override'), subscription_id: Type.Integer() }),
  Type.Object({ source: Type.Literal('implied'), by: Type.String() }),
]);

// Spelled out from the catalogue (not a free-form record) so clients see every key and serialization stays fast.
const CapabilitiesSchema = Type.Object(
  Object.fromEntries(
    PERMISSION_MODULES.map((m) => [m.key, Type.Object(Object.fromEntries(PERMISSIONS.filter((p) => p.module === m.key).map((p) => [p.code, Type.Boolean()])))]),
  ),
  { description: 'Every catalogue code by module key, true when held' },
);

export const MeResponse = Type.Object({
  schemaVersion: Type.String(),
  user_id: Type.Integer(),
  entity_id: Type.Integer(),
  employee_id: Type.Integer(),
  super_admin: Type.Boolean(),
  // A type list, not an anyOf union: the compiled serializer then writes it without trying each branch.
  role: NullableObject(Type.Object({ id: Type.Integer(), name: Type.String(), source: Type.String(), subscription_id: Type.Integer() })),
  permissions: Type.Array(Type.String(), { description: 'Effective codes, sorted' }),
  capabilities: CapabilitiesSchema,
  explain: Type.Optional(
    Type.Object({
      granted: Type.Array(Type.Object({ code: Type.String(), reason: GrantReason })),
      denied: Type.Array(Type.Object({ code: Type.String(), subscription_id: Type.Integer() })),
    }),
  ),
});
export type MeResponse = Static<typeof MeResponse>;

export const PermissionListResponse = Type.Object({ data: Type.Array(PermissionItem) });
export type PermissionListResponse = Static<typeof PermissionListResponse>;
