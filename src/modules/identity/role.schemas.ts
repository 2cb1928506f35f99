import { Type, type Static } from 'typebox';

export const RoleResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  scope: Type.Union([Type.Literal('entity'), Type.Literal('global')], { description: 'global roles are system roles shared by every entity' }),
  permissions: Type.Array(Type.String(), { description: 'Base codes of the role' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type RoleResponse = Static<typeof RoleResponse>;

export const RoleListResponse = Type.Object({ data: Type.Array(RoleResponse) });

const RoleName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

export const CreateRoleBody = Type.Object(
  {
    name: RoleName,
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    permissions: Type.Array(Type.String(), { maxItems: 500 }),
    scope: Type.Optional(Type.Union([Type.Literal('entity'), Type.Literal('global')], { default: 'entity' })),
  },
  { additionalProperties: false },
);
export type CreateRoleBody = Static<typeof CreateRoleBody>;

export const UpdateRoleBody = Type.Object(
  {
    name: Type.Optional(RoleName),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    permissions: Type.Optional(Type.Array(Type.String(), { maxItems: 500 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRoleBody = Static<typeof UpdateRoleBody>;
