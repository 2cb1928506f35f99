/** TypeBox schemas of the routing administration API. */
import { Id, IdParams } from '../../../platform/http/ids.js';
import { Type } from 'typebox';
import { RoutingConditions } from './routing.rules.js';

export const QueueBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    is_default: Type.Optional(Type.Boolean()),
    default_capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);
export const QueuePatch = Type.Partial(QueueBody, { additionalProperties: false });
export const QueueResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  is_default: Type.Boolean(),
  default_capacity: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});

export const MemberBody = Type.Object(
  {
    employee_id: Id,
    position: Type.Optional(Type.Integer({ minimum: 0 })),
    is_available: Type.Optional(Type.Boolean()),
    capacity: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const MemberPatch = Type.Object(
  {
    position: Type.Optional(Type.Integer({ minimum: 0 })),
    is_available: Type.Optional(Type.Boolean()),
    capacity: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const MemberResponse = Type.Object({
  id: Type.Integer(),
  queue_id: Type.Integer(),
  employee_id: Type.Integer(),
  position: Type.Integer(),
  is_available: Type.Boolean(),
  capacity: Type.Union([Type.Integer(), Type.Null()]),
});

export const FilterBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    queue_id: Id,
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 100000 })),
    conditions: RoutingConditions,
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const FilterPatch = Type.Partial(FilterBody, { additionalProperties: false });
export const FilterResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  queue_id: Type.Integer(),
  priority: Type.Integer(),
  conditions: RoutingConditions,
  is_active: Type.Boolean(),
});

export { IdParams };
export const MemberParams = Type.Object({ id: Id, memberId: Id });
