import { Type, type Static } from 'typebox';
import { Id } from '../../platform/http/ids.js';

const Override = Type.Object({ code: Type.String(), effect: Type.Union([Type.Literal('ALLOW'), Type.Literal('DENY')]) }, { additionalProperties: false });

export const SubscriptionResponse = Type.Object({
  id: Type.Integer(),
  subject: Type.Union([Type.Literal('employee'), Type.Literal('user')]),
  employee_id: Type.Union([Type.Integer(), Type.Null()]),
  user_id: Type.Union([Type.Integer(), Type.Null()]),
  scope: Type.Union([Type.Literal('entity'), Type.Literal('global')]),
  entity_id: Type.Union([Type.Integer(), Type.Null()]),
  role: Type.Object({ id: Type.Integer(), name: Type.String() }),
  overrides: Type.Array(Override),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type SubscriptionResponse = Static<typeof SubscriptionResponse>;

export const SubscriptionListQuery = Type.Object({
  employee_id: Type.Optional(Id),
  user_id: Type.Optional(Id),
});
export type SubscriptionListQuery = Static<typeof SubscriptionListQuery>;
export const SubscriptionListResponse = Type.Object({ data: Type.Array(SubscriptionResponse) });

export const CreateSubscriptionBody = Type.Object(
  {
    employee_id: Type.Optional(Id),
    user_id: Type.Optional(Id),
    scope: Type.Optional(Type.Union([Type.Literal('entity'), Type.Literal('global')], { default: 'entity' })),
    role_id: Id,
    overrides: Type.Optional(Type.Array(Override, { maxItems: 500 })),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

export const UpdateSubscriptionBody = Type.Object(
  {
    role_id: Type.Optional(Id),
    overrides: Type.Optional(Type.Array(Override, { maxItems: 500, description: 'Replaces every override of the subscription' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSubscriptionBody = Static<typeof UpdateSubscriptionBody>;
export type OverrideInput = Static<typeof Override>;
