/**
 * All I/O of the workflows module's tables: workflows, their versions and triggers, executions and their
 * steps. Every read by id is scoped by entity unless it serves a job that carries only ids.
 */
import { and, asc, count, desc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { runStatementIn } from '../../db/statement.js';
import { ENTITIES_WITH_TRIGGERS } from './workflow.sql.js';
import { workflow, workflowExecution, workflowExecutionStep, workflowStepTriggers, workflowVersion, type ExecutionStatus } from './workflow.table.js';

export type WorkflowRow = typeof workflow.$inferSelect;
export type TriggerRow = typeof workflowStepTriggers.$inferSelect;
export type ExecutionRow = typeof workflowExecution.$inferSelect;
export type StepRow = typeof workflowExecutionStep.$inferSelect;
export type VersionRow = typeof workflowVersion.$inferSelect;

export interface WorkflowWithTrigger {
  workflow: WorkflowRow;
  trigger: TriggerRow;
  definition: unknown;
}

export async function insertWorkflow(db: Db, values: typeof workflow.$inferInsert): Promise<WorkflowRow> {
  const [row] = await db.insert(workflow).values(values).returning();
  return row!;
}

export async function insertVersion(db: Db, values: typeof workflowVersion.$inferInsert): Promise<void> {
  await db.insert(workflowVersion).values(values);
}

/** Creates or replaces the trigger of a workflow. */
export async function saveTrigger(db: Db, values: Omit<typeof workflowStepTriggers.$inferInsert, 'id'>): Promise<TriggerRow> {
  const [row] = await db
    .insert(workflowStepTriggers)
    .values(values)
    .onConflictDoUpdate({
      target: workflowStepTriggers.workflowId,
      set: {
        triggerType: values.triggerType,
        presetCode: values.presetCode,
        filters: values.filters,
        enabled: values.enabled,
        nextRunAt: values.nextRunAt,
        updatedAt: new Date(),
      },
    })
    .returning();
  return row!;
}

export async function findWorkflow(db: Db, entityId: number, id: number, lock = false): Promise<WorkflowWithTrigger | undefined> {
  const q = db
    .select({ workflow, trigger: workflowStepTriggers, definition: workflowVersion.definition })
    .from(workflow)
    .innerJoin(workflowStepTriggers, eq(workflowStepTriggers.workflowId, workflow.id))
    .innerJoin(workflowVersion, and(eq(workflowVersion.workflowId, workflow.id), eq(workflowVersion.version, workflow.version)))
    .where(and(eq(workflow.entityId, entityId), eq(workflow.id, id), isNull(workflow.deletedAt)));
  const [row] = lock ? await q.for('update', { of: workflow }) : await q;
  return row;
}

export async function listWorkflows(
  db: Db,
  entityId: number,
  q: { limit: number; offset: number; triggerType?: string | undefined; enabled?: boolean | undefined },
): Promise<{ rows: WorkflowWithTrigger[]; total: number }> {
  const where = and(
    eq(workflow.entityId, entityId),
    isNull(workflow.deletedAt),
    q.triggerType === undefined ? undefined : eq(workflowStepTriggers.triggerType, q.triggerType),
    q.enabled === undefined ? undefined : eq(workflow.enabled, q.enabled),
  );
  const rows = await db
    .select({ workflow, trigger: workflowStepTriggers, definition: workflowVersion.definition })
    .from(workflow)
    .innerJoin(workflowStepTriggers, eq(workflowStepTriggers.workflowId, workflow.id))
    .innerJoin(workflowVersion, and(eq(workflowVersion.workflowId, workflow.id), eq(workflowVersion.version, workflow.version)))
    .where(where)
    .orderBy(desc(workflow.id))
    .limit(q.limit)
    .offset(q.offset);
  const [total] = await db.select({ n: count() }).from(workflow).innerJoin(workflowStepTriggers, eq(workflowStepTriggers.workflowId, workflow.id)).where(where);
  return { rows, total: total?.n ?? 0 };
}

export async function updateWorkflow(db: Db, id: number, values: Partial<typeof workflow.$inferInsert>): Promise<WorkflowRow> {
  const [row] = await db
    .update(workflow)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(workflow.id, id))
    .returning();
  return row!;
}

/** Deletes softly: the workflow stops triggering, its executions and versions stay readable to operators. */
export async function deleteWorkflow(db: Db, entityId: number, id: number): Promise<boolean> {
  const rows = await db
    .update(workflow)
    .set({ deletedAt: new Date(), enabled: false, updatedAt: new Date() })
    .where(and(eq(workflow.entityId, entityId), eq(workflow.id, id), isNull(workflow.deletedAt)))
    .returning({ id: workflow.id });
  if (rows.length === 0) return false;
  await db.update(workflowStepTriggers).set({ enabled: false, nextRunAt: null, updatedAt: new Date() }).where(eq(workflowStepTriggers.workflowId, id));
  return true;
}

export async function listVersions(db: Db, entityId: number, workflowId: number): Promise<VersionRow[]> {
  return db
    .select()
    .from(workflowVersion)
    .where(and(eq(workflowVersion.entityId, entityId), eq(workflowVersion.workflowId, workflowId)))
    .orderBy(desc(workflowVersion.version));
}

/** The definition an execution runs (versions never change once written). */
export async function versionDefinition(db: Db, workflowId: number, version: number): Promise<unknown> {
  const [row] = await db
    .select({ definition: workflowVersion.definition })
    .from(workflowVersion)
    .where(and(eq(workflowVersion.workflowId, workflowId), eq(workflowVersion.version, version)));
  return row?.definition;
}

/** Changes whenever a trigger of `(entityId, triggerType)` is added, changed or removed: the matcher's cache key. */
export async function triggerRevision(db: Db, entityId: number, triggerType: string): Promise<string> {
  const [row] = await db
    .select({ n: count(), last: sql<string | null>`max(${workflowStepTriggers.updatedAt})::text` })
    .from(workflowStepTriggers)
    .where(and(eq(workflowStepTriggers.entityId, entityId), eq(workflowStepTriggers.triggerType, triggerType)));
  return `${row?.n ?? 0}:${row?.last ?? ''}`;
}

/** Which of `entityIds` have an enabled trigger of `triggerType` (one statement, for a whole batch of events). */
export async function entitiesWithTriggers(db: Db, triggerType: string, entityIds: number[]): Promise<Set<number>> {
  if (entityIds.length === 0) return new Set();
  // Asked in the transaction of every change that publishes an event: prepared, planned once per connection.
  const rows = await runStatementIn<{ entity_id: number }>(db, ENTITIES_WITH_TRIGGERS, [triggerType, [...new Set(entityIds)]]);
  return new Set(rows.map((r) => r.entity_id));
}

/** Enabled triggers of `(entityId, triggerType)` with the version their workflow runs now. */
export async function enabledTriggers(db: Db, entityId: number, triggerType: string): Promise<{ workflowId: number; version: number; filters: unknown }[]> {
  return db
    .select({ workflowId: workflow.id, version: workflow.version, filters: workflowStepTriggers.filters })
    .from(workflowStepTriggers)
    .innerJoin(workflow, eq(workflow.id, workflowStepTriggers.workflowId))
    .where(
      and(
        eq(workflowStepTriggers.entityId, entityId),
        eq(workflowStepTriggers.triggerType, triggerType),
        eq(workflowStepTriggers.enabled, true),
        isNull(workflow.deletedAt),
      ),
    )
    .orderBy(asc(workflow.id));
}

/** Scheduled triggers of enabled workflows whose slot has come (not locked: `lockDueSchedule` takes each). */
export async function dueSchedules(db: Db, now: Date, limit: number): Promise<{ id: number; entityId: number }[]> {
  return db
    .select({ id: workflowStepTriggers.id, entityId: workflowStepTriggers.entityId })
    .from(workflowStepTriggers)
    .where(and(eq(workflowStepTriggers.enabled, true), sql`${workflowStepTriggers.nextRunAt} is not null`, lte(workflowStepTriggers.nextRunAt, now)))
    .orderBy(asc(workflowStepTriggers.nextRunAt))
    .limit(limit);
}

/** Trigger `id` locked for this transaction if it is still due (another instance skips it while locked). */
export async function lockDueSchedule(db: Db, id: number, now: Date): Promise<{ trigger: TriggerRow; version: number } | undefined> {
  const [row] = await db
    .select({ trigger: workflowStepTriggers, version: workflow.version })
    .from(workflowStepTriggers)
    .innerJoin(workflow, eq(workflow.id, workflowStepTriggers.workflowId))
    .where(
      and(
        eq(workflowStepTriggers.id, id),
        eq(workflowStepTriggers.enabled, true),
        sql`${workflowStepTriggers.nextRunAt} is not null`,
        lte(workflowStepTriggers.nextRunAt, now),
      ),
    )
    .for('update', { of: workflowStepTriggers, skipLocked: true });
  return row;
}

export async function setNextRunAt(db: Db, triggerId: number, nextRunAt: Date | null): Promise<void> {
  // updated_at is left alone: a slot passing is not a change of the trigger (the matcher's revision).
  await db.update(workflowStepTriggers).set({ nextRunAt }).where(eq(workflowStepTriggers.id, triggerId));
}

/** Inserts an execution unless one with the same `(workflow_id, dedup_key)` exists; undefined then. */
export async function insertExecution(db: Db, values: typeof workflowExecution.$inferInsert): Promise<ExecutionRow | undefined> {
  const [row] = await db.insert(workflowExecution).values(values).onConflictDoNothing().returning();
  return row;
}

export async function getExecution(db: Db, id: number): Promise<ExecutionRow | undefined> {
  const [row] = await db.select().from(workflowExecution).where(eq(workflowExecution.id, id));
  return row;
}

export async function findExecution(db: Db, entityId: number, workflowId: number, id: number): Promise<ExecutionRow | undefined> {
  const [row] = await db
    .select()
    .from(workflowExecution)
    .where(and(eq(workflowExecution.entityId, entityId), eq(workflowExecution.workflowId, workflowId), eq(workflowExecution.id, id)));
  return row;
}

export async function listExecutions(
  db: Db,
  entityId: number,
  workflowId: number,
  q: { limit: number; offset: number; status?: ExecutionStatus | undefined },
): Promise<{ rows: ExecutionRow[]; total: number }> {
  const where = and(
    eq(workflowExecution.entityId, entityId),
    eq(workflowExecution.workflowId, workflowId),
    q.status === undefined ? undefined : eq(workflowExecution.status, q.status),
  );
  const rows = await db.select().from(workflowExecution).where(where).orderBy(desc(workflowExecution.id)).limit(q.limit).offset(q.offset);
  const [total] = await db.select({ n: count() }).from(workflowExecution).where(where);
  return { rows, total: total?.n ?? 0 };
}

export async function updateExecution(
  db: Db,
  id: number,
  values: Partial<Pick<ExecutionRow, 'status' | 'contextJson' | 'error' | 'finishedAt'>>,
): Promise<void> {
  await db
    .update(workflowExecution)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(workflowExecution.id, id));
}

export async function stepsOf(db: Db, executionIds: number[]): Promise<StepRow[]> {
  if (executionIds.length === 0) return [];
  return db
    .select()
    .from(workflowExecutionStep)
    .where(sql`${workflowExecutionStep.executionId} = any(${sql.param(executionIds)}::int[])`)
    .orderBy(asc(workflowExecutionStep.id));
}

/**
 * Records an attempt at a step visit: creates the row, or counts one more attempt on a row still running.
 * Returns the row; a row already succeeded or failed comes back unchanged (the job was delivered again).
 */
export async function beginStep(db: Db, values: { entityId: number; executionId: number; stepKey: string; visit: number; action: string }): Promise<StepRow> {
  const [row] = await db
    .insert(workflowExecutionStep)
    .values({ ...values, attempts: 1 })
    .onConflictDoUpdate({
      target: [workflowExecutionStep.executionId, workflowExecutionStep.stepKey, workflowExecutionStep.visit],
      set: { attempts: sql`${workflowExecutionStep.attempts} + 1` },
      setWhere: eq(workflowExecutionStep.status, 'running'),
    })
    .returning();
  if (row) return row;
  const [done] = await db
    .select()
    .from(workflowExecutionStep)
    .where(
      and(
        eq(workflowExecutionStep.executionId, values.executionId),
        eq(workflowExecutionStep.stepKey, values.stepKey),
        eq(workflowExecutionStep.visit, values.visit),
      ),
    );
  return done!;
}

/** Ends a step visit still running; false when it had already ended (a concurrent delivery won). */
export async function finishStep(db: Db, id: number, values: { status: 'succeeded' | 'failed'; result?: unknown; error?: unknown }): Promise<boolean> {
  const rows = await db
    .update(workflowExecutionStep)
    .set({ status: values.status, result: values.result ?? null, error: values.error ?? null, finishedAt: new Date() })
    .where(and(eq(workflowExecutionStep.id, id), eq(workflowExecutionStep.status, 'running')))
    .returning({ id: workflowExecutionStep.id });
  return rows.length > 0;
}

/** Keeps the last transient error of a step that will be retried. */
export async function noteStepError(db: Db, id: number, error: unknown): Promise<void> {
  await db.update(workflowExecutionStep).set({ error }).where(eq(workflowExecutionStep.id, id));
}
