/** Opportunities and the pipeline (docs/api/commerce.md). */
import { Type, type Static } from 'typebox';
import { Id, IdOf } from '../../platform/http/ids.js';
import { Pagination, pageQuery } from '../../platform/http/pagination.js';
import { StringEnum } from '../../platform/http/schema-types.js';
import { STATE_OUTCOMES } from './commerce.table.js';
import { Currency } from './document.schemas.js';

const strict = { additionalProperties: false } as const;
const DateOnly = Type.String({ format: 'date', description: 'YYYY-MM-DD' });

const PipelineStateResponse = Type.Object({ id: Type.Integer(), name: Type.String(), position: Type.Integer(), outcome: StringEnum(STATE_OUTCOMES) });
export const PipelineResponse = Type.Object({ states: Type.Array(PipelineStateResponse) });
export const PipelineBody = Type.Object(
  {
    states: Type.Array(
      Type.Object({ id: Type.Optional(Id), name: Type.String({ minLength: 1, maxLength: 100 }), outcome: StringEnum(STATE_OUTCOMES) }, strict),
      { minItems: 2, maxItems: 30 },
    ),
  },
  { ...strict, description: 'The whole ordered pipeline: states with an id are kept (renamed, moved), new ones added, missing ones archived' },
);
export type PipelineBody = Static<typeof PipelineBody>;

export const OpportunityCreateBody = Type.Object(
  {
    lead_id: IdOf('Lead'),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    value: Type.String({ pattern: '^\\d{1,13}(\\.\\d{1,6})?$', description: 'Expected value in `currency`' }),
    currency: Currency,
    expected_close_date: Type.Optional(DateOnly),
    state_id: Type.Optional(IdOf('Starting state; default the first of the pipeline')),
    owner_employee_id: Type.Optional(IdOf('Owner; default the caller')),
  },
  strict,
);
export type OpportunityCreateBody = Static<typeof OpportunityCreateBody>;
export const StateChangeBody = Type.Object({ state_id: IdOf('State to move to') }, strict);

export const OpportunityResponse = Type.Object({
  id: Type.Integer(),
  lead_id: Type.Integer(),
  name: Type.String(),
  state: PipelineStateResponse,
  value: Type.String(),
  value_minor: Type.Integer(),
  currency: Type.String(),
  expected_close_date: Type.Union([Type.String(), Type.Null()]),
  owner_employee_id: Type.Union([Type.Integer(), Type.Null()]),
  history: Type.Optional(
    Type.Array(
      Type.Object({
        from_state_id: Type.Union([Type.Integer(), Type.Null()]),
        to_state_id: Type.Integer(),
        changed_by_employee_id: Type.Union([Type.Integer(), Type.Null()]),
        changed_at: Type.String({ format: 'date-time' }),
      }),
    ),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type OpportunityResponse = Static<typeof OpportunityResponse>;
export const OpportunityListQuery = Type.Object({ ...pageQuery(50), lead_id: Type.Optional(IdOf('Lead')), state_id: Type.Optional(IdOf('State')) });
export type OpportunityListQuery = Static<typeof OpportunityListQuery>;
export const OpportunityListResponse = Type.Object({ data: Type.Array(OpportunityResponse), pagination: Pagination });
