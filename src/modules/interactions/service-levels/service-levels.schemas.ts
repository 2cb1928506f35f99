/** TypeBox schemas of `/interactions/business-hours` and `/interactions/sla-policies` (issue 31; docs/api/interactions.md "Service levels"). */
import { Type } from 'typebox';
import { Id } from '../../../platform/http/ids.js';
import { CHANNEL_TYPE_CODES, SLA_TIME_BASES } from '../model/index.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Iso = Type.String({ format: 'date-time' });
const Clock = Type.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$', description: 'local time HH:MM (24:00 ends the day)' });

const WeeklyInterval = Type.Object(
  {
    day: Type.Integer({ minimum: 1, maximum: 7, description: 'ISO weekday: 1 Monday … 7 Sunday' }),
    start: Clock,
    end: Type.String({ ...Clock, description: 'local time HH:MM; at or before `start`: the interval crosses midnight' }),
  },
  { additionalProperties: false },
);

export const BusinessHoursBody = Type.Object(
  {
    routing_queue_id: Type.Optional(Nullable(Id)),
    time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "IANA time zone; default the entity's" })),
    intervals: Type.Array(WeeklyInterval, { maxItems: 100 }),
    holidays: Type.Optional(Type.Array(Type.String({ format: 'date' }), { maxItems: 1000, description: 'local dates YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);
export const BusinessHoursPatch = Type.Object(
  {
    time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    intervals: Type.Optional(Type.Array(WeeklyInterval, { maxItems: 100 })),
    holidays: Type.Optional(Type.Array(Type.String({ format: 'date' }), { maxItems: 1000 })),
  },
  { additionalProperties: false },
);
export const BusinessHoursResponse = Type.Object({
  id: Type.Integer(),
  routing_queue_id: Nullable(Type.Integer()),
  time_zone: Type.String(),
  intervals: Type.Array(WeeklyInterval),
  holidays: Type.Array(Type.String()),
  created_at: Iso,
  updated_at: Iso,
});

const Minutes = Nullable(Type.Integer({ minimum: 1, maximum: 525_600, description: 'minutes of `time_basis`; null: no target' }));

const policyFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'order within a rank, lowest first' })),
  lead_id: Type.Optional(Nullable(Id)),
  routing_queue_id: Type.Optional(Nullable(Id)),
  channel_type_code: Type.Optional(Nullable(Type.Enum(CHANNEL_TYPE_CODES))),
  first_response_minutes: Type.Optional(Minutes),
  next_response_minutes: Type.Optional(Minutes),
  resolution_minutes: Type.Optional(Minutes),
  time_basis: Type.Optional(Type.Enum(SLA_TIME_BASES)),
  at_risk_share: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'share of a target after which it is at risk (default 0.8)' }),
  ),
  pause_on_pending: Type.Optional(Type.Boolean()),
  pause_on_snoozed: Type.Optional(Type.Boolean()),
  is_active: Type.Optional(Type.Boolean()),
};
export const SlaPolicyBody = Type.Object(policyFields, { additionalProperties: false });
export const SlaPolicyPatch = Type.Partial(SlaPolicyBody, { additionalProperties: false });
export const SlaPolicyResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  position: Type.Integer(),
  lead_id: Nullable(Type.Integer()),
  routing_queue_id: Nullable(Type.Integer()),
  channel_type_code: Nullable(Type.Enum(CHANNEL_TYPE_CODES)),
  first_response_minutes: Nullable(Type.Integer()),
  next_response_minutes: Nullable(Type.Integer()),
  resolution_minutes: Nullable(Type.Integer()),
  time_basis: Type.Enum(SLA_TIME_BASES),
  at_risk_share: Type.Number(),
  pause_on_pending: Type.Boolean(),
  pause_on_snoozed: Type.Boolean(),
  is_active: Type.Boolean(),
  created_at: Iso,
  updated_at: Iso,
});
