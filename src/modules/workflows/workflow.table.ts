import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { idColumn, timestampColumn, timestampColumns } from '../../db/columns.js';
import { entityIdColumn } from '../identity/entity.table.js';

/**
 * A workflow of the entity: a trigger and steps, defined by versions. `version` is the current one; an
 * execution keeps running the version it started with. A deleted workflow keeps its history
 * (`deleted_at`) and never triggers again.
 */
export const workflow = pgTable(
  'workflow',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    name: text().notNull(),
    description: text(),
    enabled: boolean().notNull().default(true),
    version: integer().notNull().default(1),
    createdByEmployeeId: integer(),
    updatedByEmployeeId: integer(),
    deletedAt: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [index('workflow_entity_id_idx').on(t.entityId, t.id)],
);

/** One immutable definition of a workflow: `definition` is `{ trigger, steps }` as saved (workflow.schemas.ts). */
export const workflowVersion = pgTable(
  'workflow_version',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    workflowId: integer()
      .notNull()
      .references(() => workflow.id),
    version: integer().notNull(),
    definition: jsonb().notNull(),
    createdByEmployeeId: integer(),
    createdAt: timestampColumn(),
  },
  (t) => [uniqueIndex('workflow_version_workflow_id_version_uq').on(t.workflowId, t.version)],
);

/**
 * SPEC "Workflow trigger record": the current trigger of a workflow (one per workflow). `filters` are
 * evaluated together with `trigger_type`; `preset_code` is a label the engine never reads. For scheduled
 * triggers `next_run_at` is the next slot (schedule.ts), null when the workflow cannot fire.
 * `enabled` mirrors the workflow's so that matching reads this table alone.
 */
export const workflowStepTriggers = pgTable(
  'workflow_step_triggers',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    workflowId: integer()
      .notNull()
      .references(() => workflow.id),
    triggerType: text().notNull(),
    presetCode: text(),
    filters: jsonb()
      .notNull()
      .default(sql`'[]'::jsonb`),
    enabled: boolean().notNull(),
    nextRunAt: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('workflow_step_triggers_workflow_id_uq').on(t.workflowId),
    index('workflow_step_triggers_entity_id_trigger_type_idx').on(t.entityId, t.triggerType, t.updatedAt),
    index('workflow_step_triggers_next_run_at_idx')
      .on(t.nextRunAt)
      .where(sql`${t.nextRunAt} is not null and ${t.enabled}`),
  ],
);

export const EXECUTION_STATUSES = ['running', 'succeeded', 'failed', 'stopped'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/**
 * One run of a workflow version. `context_json` holds the trigger data under `trigger` (SPEC "Trigger
 * context shapes") and `workflow.step_visits`; `dedup_key` makes starting idempotent (the event's job,
 * the schedule slot, the manual request). `depth` counts workflow-caused hops (loop protection).
 */
export const workflowExecution = pgTable(
  'workflow_execution',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    workflowId: integer()
      .notNull()
      .references(() => workflow.id),
    workflowVersion: integer().notNull(),
    triggerType: text().notNull(),
    status: text({ enum: EXECUTION_STATUSES }).notNull().default('running'),
    contextJson: jsonb().notNull(),
    depth: integer().notNull().default(0),
    dedupKey: text().notNull(),
    error: jsonb(),
    startedAt: timestampColumn(),
    finishedAt: timestamp({ withTimezone: true }),
    ...timestampColumns(),
  },
  (t) => [
    uniqueIndex('workflow_execution_workflow_id_dedup_key_uq').on(t.workflowId, t.dedupKey),
    index('workflow_execution_entity_id_workflow_id_idx').on(t.entityId, t.workflowId, t.id),
  ],
);

export const STEP_STATUSES = ['running', 'succeeded', 'failed'] as const;

/** One visit of a step in an execution, with its result or error and the attempts it took. */
export const workflowExecutionStep = pgTable(
  'workflow_execution_step',
  {
    id: idColumn(),
    entityId: entityIdColumn(),
    executionId: integer()
      .notNull()
      .references(() => workflowExecution.id),
    stepKey: text().notNull(),
    visit: integer().notNull(),
    action: text().notNull(),
    status: text({ enum: STEP_STATUSES }).notNull().default('running'),
    attempts: integer().notNull().default(0),
    result: jsonb(),
    error: jsonb(),
    startedAt: timestampColumn(),
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex('workflow_execution_step_execution_id_step_key_visit_uq').on(t.executionId, t.stepKey, t.visit)],
);
