/**
 * Workflows API shapes (docs/api/workflows.md). Unknown members are rejected (`additionalProperties:
 * false`): a misspelt step field must not be silently dropped from an automation.
 *
 * A step is `{ key, action, ...its fields, next? }`; steps run in array order unless `next` names
 * another step (null ends the execution); a `condition` step goes to `then` or `else`.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Id, IdOf } from '../../platform/http/ids.js';
import { Pagination, pageQuery } from '../../platform/http/pagination.js';
import { NullableString, StringEnum } from '../../platform/http/schema-types.js';
import { TemplateMessageBody } from '../interactions/index.js';
import { LabelIds } from '../labels/index.js';
import { FILTER_OPERATORS } from './filter-engine.js';
import { TRIGGER_EVENTS } from './field-registry.js';
import { EXECUTION_STATUSES, STEP_STATUSES } from './workflow.table.js';

const strict = { additionalProperties: false } as const;
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const STEP_KEY_PATTERN = '^[a-z0-9_]{1,40}$';
const StepKey = Type.String({ pattern: STEP_KEY_PATTERN, description: 'Unique within the workflow (`step_1`, `greet`)' });
const NextKey = Type.Optional(Type.Union([StepKey, Type.Null()], { description: 'Step to run next; default the following step; null ends the execution' }));

/** A filter or a group; checked in depth against the field registry by the service. */
const FilterNodeSchema = Type.Unsafe<unknown>({
  type: 'object',
  description: `A filter {field, operator, value} (operator one of ${FILTER_OPERATORS.join(', ')}) or a group {any: [...]} (OR) / {all: [...]} (AND)`,
});
const Filters = Type.Array(FilterNodeSchema, { maxItems: 50, description: 'All must hold (AND); groups nest OR and AND' });

const step = <const A extends string, P extends Record<string, TSchema>>(action: A, props: P, description: string) =>
  Type.Object({ key: StepKey, action: Type.Literal(action), ...props, next: NextKey }, { ...strict, description });

const SendTextStep = step(
  'send_text',
  { text: Type.String({ minLength: 1, maxLength: 4096, description: 'May name context values: {{trigger.sender_name}}' }) },
  'Send a text to the conversation of the trigger (or of its contact)',
);
const SendTemplateStep = step(
  'send_template',
  { template: TemplateMessageBody },
  'Send an approved template to the conversation (also outside the service window)',
);
const AssignConversationStep = step(
  'assign_conversation',
  { employee_id: Type.Optional(IdOf('Employee to assign')), queue_id: Type.Optional(IdOf('Routing queue: its next member by round robin')) },
  'Assign the conversation to an employee or through a routing queue (exactly one)',
);
const AssignSellerStep = step('assign_seller', { employee_id: IdOf('Seller to assign to the lead') }, 'Assign a seller to the lead of the trigger');
const AddNoteStep = step(
  'add_note',
  { text: Text(4096) },
  'Write a private note on the conversation, authored by the workflow (mentions as `@[employee:<id>]`)',
);
const SetFollowUpStep = step('set_follow_up', { follow_up: Type.Boolean() }, 'Mark or clear the conversation follow-up');
const StepLabelIds = { ...LabelIds, description: "Labels of the entity's catalogue (GET /labels), 1 to 20, each once" };
const AddLabelStep = step('add_label', { label_ids: StepLabelIds }, 'Put labels on the conversation itself');
const RemoveLabelStep = step(
  'remove_label',
  { label_ids: StepLabelIds },
  "Take labels off the conversation itself (one it shows from its contact or lead stays: it is the record's)",
);
const WaitStep = step(
  'wait',
  { seconds: Type.Integer({ minimum: 1, maximum: 30 * 24 * 3600, description: 'Delay before the next step (up to 30 days)' }) },
  'Wait before the next step',
);
const WebhookStep = step(
  'webhook',
  {
    url: Type.String({ pattern: '^https://', maxLength: 2000, description: 'HTTPS only; private, loopback and reserved addresses are refused' }),
    method: Type.Optional(StringEnum(['POST', 'PUT', 'PATCH'] as const, { description: 'Default POST' })),
    headers: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 1000 }), { maxProperties: 20 })),
  },
  'POST the execution context as JSON to an outbound webhook (Idempotency-Key header: one per step visit)',
);
const ConditionStep = Type.Object(
  { key: StepKey, action: Type.Literal('condition'), filters: Filters, then: NextKey, else: NextKey },
  { ...strict, description: 'Go to `then` when the filters hold, else to `else` (absent: the following step; null: end)' },
);

export const Step = Type.Union([
  SendTextStep,
  SendTemplateStep,
  AssignConversationStep,
  AssignSellerStep,
  AddNoteStep,
  SetFollowUpStep,
  AddLabelStep,
  RemoveLabelStep,
  WaitStep,
  WebhookStep,
  ConditionStep,
]);
export type Step = Static<typeof Step>;
const Steps = Type.Array(Step, { minItems: 1, maxItems: 50 });

const PresetValues = Type.Object(
  {
    keyword: Type.Optional(Text(200)),
    run_at_time: Type.Optional(Type.String({ description: 'HH:mm' })),
    timezone: Type.Optional(Text(64)),
    minutes: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description: 'SLA cards: the response target in business minutes' })),
    queue_id: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$', description: 'sla_no_reply_reassign: the routing queue' })),
    url: Type.Optional(Type.String({ pattern: '^https://', maxLength: 2000, description: 'sla_no_reply_webhook: the HTTPS URL' })),
  },
  { ...strict, description: 'What the preset card asks the user for' },
);

export const WorkflowCreateBody = Type.Object(
  {
    name: Text(200),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
    preset_code: Type.Optional(Text(64)),
    preset_values: Type.Optional(PresetValues),
    trigger_type: Type.Optional(StringEnum(TRIGGER_EVENTS, { description: 'Required without preset_code; with one it must match the preset' })),
    filters: Type.Optional(Filters),
    steps: Type.Optional({ ...Steps, description: "Required unless the preset proposes steps (the SLA cards' `steps`), which it then takes" }),
  },
  { ...strict, description: 'With preset_code the server resolves the event and the pre-filled filters; `filters` are added to them (AND)' },
);
export type WorkflowCreateBody = Static<typeof WorkflowCreateBody>;

export const WorkflowUpdateBody = Type.Object(
  {
    name: Type.Optional(Text(200)),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
    preset_code: Type.Optional(Type.Union([Text(64), Type.Null()])),
    preset_values: Type.Optional(PresetValues),
    trigger_type: Type.Optional(StringEnum(TRIGGER_EVENTS)),
    filters: Type.Optional(Filters),
    steps: Type.Optional(Steps),
  },
  { ...strict, description: 'Changing the trigger or the steps creates a new version; running executions finish on theirs' },
);
export type WorkflowUpdateBody = Static<typeof WorkflowUpdateBody>;

const Trigger = Type.Object({
  trigger_type: StringEnum(TRIGGER_EVENTS),
  preset_code: NullableString(),
  filters: Type.Array(Type.Unknown()),
  next_run_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Scheduled workflows: the next slot' })),
});

export const WorkflowResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: NullableString(),
  enabled: Type.Boolean(),
  version: Type.Integer(),
  trigger: Trigger,
  steps: Type.Array(Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type WorkflowResponse = Static<typeof WorkflowResponse>;

export const WorkflowListQuery = Type.Object({
  ...pageQuery(50),
  trigger_type: Type.Optional(StringEnum(TRIGGER_EVENTS)),
  enabled: Type.Optional(Type.Boolean()),
});
export type WorkflowListQuery = Static<typeof WorkflowListQuery>;
export const WorkflowListResponse = Type.Object({ data: Type.Array(WorkflowResponse), pagination: Pagination });

const WorkflowVersionResponse = Type.Object({
  version: Type.Integer(),
  definition: Type.Unknown(),
  created_by_employee_id: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
export const WorkflowVersionListResponse = Type.Object({ data: Type.Array(WorkflowVersionResponse) });

export const ExecuteBody = Type.Object(
  {
    contact_id: Type.Optional(Type.Union([Id, Type.Null()])),
    lead_id: Type.Optional(Type.Union([Id, Type.Null()])),
    group_id: Type.Optional(Type.Union([Id, Type.Null()])),
  },
  { ...strict, description: 'The records the manual run is about (SPEC manual context); a contact implies its lead and group' },
);
export type ExecuteBody = Static<typeof ExecuteBody>;

const StepRunResponse = Type.Object({
  step_key: Type.String(),
  visit: Type.Integer(),
  action: Type.String(),
  status: StringEnum(STEP_STATUSES),
  attempts: Type.Integer(),
  result: Type.Unknown(),
  error: Type.Unknown(),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const ExecutionResponse = Type.Object({
  id: Type.Integer(),
  workflow_id: Type.Integer(),
  workflow_version: Type.Integer(),
  trigger_type: Type.String(),
  status: StringEnum(EXECUTION_STATUSES),
  depth: Type.Integer({ description: 'Workflow-caused hops before this execution (loop protection)' }),
  context_json: Type.Unknown(),
  error: Type.Unknown(),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  steps: Type.Optional(Type.Array(StepRunResponse)),
});
export type ExecutionResponse = Static<typeof ExecutionResponse>;
export const ExecutionListQuery = Type.Object({ ...pageQuery(50), status: Type.Optional(StringEnum(EXECUTION_STATUSES)) });
export type ExecutionListQuery = Static<typeof ExecutionListQuery>;
export const ExecutionListResponse = Type.Object({ data: Type.Array(ExecutionResponse), pagination: Pagination });
export const ExecutionParams = Type.Object({ id: Id, executionId: Id });

export const DryRunBody = Type.Object(
  { context: Type.Record(Type.String(), Type.Unknown(), { description: 'A sample context: `{ trigger: {...} }` as SPEC shapes it; step visits start at 0' }) },
  strict,
);
export const DryRunResponse = Type.Object({
  matched: Type.Boolean({ description: 'Whether the trigger filters hold for the sample' }),
  steps: Type.Array(
    Type.Object({ step_key: Type.String(), action: Type.String(), would: Type.Unknown({ description: 'What the step would do, with its text rendered' }) }),
  ),
  stopped_by: Type.Optional(Type.String({ description: 'Why the walk stopped early (a wait, the step limit)' })),
});

const PresetCardSchema = Type.Object({
  code: Type.String(),
  event: Type.String({ description: 'Trigger event (planned events for cards not available yet)' }),
  category: StringEnum(['Mensajeria', 'Tiempo', 'Manual', 'CRM'] as const),
  label: Type.String(),
  filters: Type.Array(Type.Unknown(), { description: "Pre-filled filters; `{keyword}` marks the user's text" }),
  inputs: Type.Array(Type.Object({ name: Type.String(), required: Type.Boolean(), description: Type.String() })),
  available: Type.Boolean(),
  steps: Type.Optional(
    Type.Array(Type.Unknown(), {
      description: 'Steps the card proposes (`{input}` marks a value filled in); taken when the workflow is created without steps',
    }),
  ),
});
export const PresetListResponse = Type.Object({ data: Type.Array(PresetCardSchema) });
const FieldDefinitionSchema = Type.Object({
  field: Type.String(),
  type: StringEnum(['string', 'number', 'boolean', 'date', 'number[]'] as const),
  operators: Type.Array(StringEnum(FILTER_OPERATORS)),
  values: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
  caseInsensitive: Type.Optional(Type.Boolean()),
  description: Type.String(),
  addition: Type.Optional(Type.Boolean({ description: "Not in SPEC's registry: ours" })),
  conditionsOnly: Type.Optional(Type.Boolean({ description: 'Only condition steps may name it (the manual trigger has no filters)' })),
});
export const FieldRegistryResponse = Type.Object({
  data: Type.Array(
    Type.Object({ event: StringEnum(TRIGGER_EVENTS), status: StringEnum(['mvp', 'post_mvp'] as const), fields: Type.Array(FieldDefinitionSchema) }),
  ),
});
