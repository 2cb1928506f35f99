/**
 * Workflows of the entity: create from a preset or an explicit trigger, read, change (a change of the
 * trigger or the steps writes a new version; executions finish on the version they started with),
 * enable and disable, delete; the preset cards and the field registry for clients.
 * Errors: 400 `validation_failed` naming the filter or step (a label id that is not a label of the entity too), 404
 * for another entity's workflow.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import { notFound, validationFailed, type FieldError } from '../../platform/errors.js';
import { MAX_ID } from '../../platform/http/ids.js';
import { transaction } from '../../platform/transactions/transaction.js';
import type { FilterNode } from './filter-engine.js';
import { EVENT_STATUS, FIELD_REGISTRY, TRIGGER_EVENTS, type TriggerEvent } from './field-registry.js';
import { PRESET_CARDS, resolvePreset, type PresetValues } from './presets.js';
import { definitionErrors, labelReferences, type Definition, type TriggerDefinition } from './workflow.definition.js';
import type { Labels } from '../labels/index.js';
import * as repo from './workflow.repository.js';
import type { Step, WorkflowCreateBody, WorkflowListQuery, WorkflowResponse, WorkflowUpdateBody } from './workflow.schemas.js';

export function createWorkflowService(deps: {
  db: Db;
  /** The next slot of scheduled `filters` of an entity whose zone is `zone`. */
  nextRunAt: (filters: unknown, entityId: number, zone: string) => Date | null;
  /** The entity's IANA time zone (read before transactions: the embedded database is one session). */
  timeZoneOf: (entityId: number) => Promise<string>;
  webhookAllowedAddresses: readonly string[];
  /** The entity's label catalogue: label ids in steps and filters are checked when saved. */
  labels: Pick<Labels, 'unknownLabels'>;
}) {
  const { db } = deps;

  /**
   * The steps the body's preset proposes, filled with its values (the SLA cards); undefined without. They are
   * checked like steps in a body (`definitionErrors`), so a card's template is never trusted blindly.
   */
  function presetSteps(body: { preset_code?: string | null | undefined; preset_values?: PresetValues | undefined }): Step[] | undefined {
    if (!body.preset_code) return undefined;
    const resolved = resolvePreset(body.preset_code, body.preset_values ?? {}, []);
    return 'steps' in resolved ? (resolved.steps as Step[] | undefined) : undefined;
  }

  /** The trigger a body asks for: the preset's (plus extra filters) or the explicit one. */
  function triggerOf(body: {
    preset_code?: string | null | undefined;
    preset_values?: PresetValues | undefined;
    trigger_type?: TriggerEvent | undefined;
    filters?: unknown[] | undefined;
  }): TriggerDefinition {
    const extra = (body.filters ?? []) as FilterNode[];
    if (body.preset_code) {
      const resolved = resolvePreset(body.preset_code, body.preset_values ?? {}, extra);
      if ('errors' in resolved) throw validationFailed(resolved.errors);
      if (body.trigger_type !== undefined && body.trigger_type !== resolved.event) {
        throw validationFailed([{ field: '/body/trigger_type', message: `preset ${body.preset_code} triggers on ${resolved.event}` }]);
      }
      return {
        trigger_type: resolved.event,
        preset_code: body.preset_code,
        filters: resolved.filters,
        preset_values: body.preset_values ?? {},
        extra_filters: extra,
      };
    }
    if (body.preset_values !== undefined) throw validationFailed([{ field: '/body/preset_values', message: 'preset_values need a preset_code' }]);
    if (body.trigger_type === undefined) throw validationFailed([{ field: '/body/trigger_type', message: 'give a preset_code or a trigger_type' }]);
    return { trigger_type: body.trigger_type, preset_code: null, filters: extra };
  }

  function check(definition: Definition): void {
    const errors: FieldError[] = definitionErrors(definition, deps.webhookAllowedAddresses);
    if (errors.length > 0) throw validationFailed(errors, 'The workflow is not valid');
  }

  /**
   * 400 naming each of `refs` (label ids of a body's steps and filters) that is not a label of the entity: another
   * entity's, deleted or never made. Read before the change's transaction (the embedded database is one session).
   */
  async function checkLabels(entityId: number, refs: ReturnType<typeof labelReferences>): Promise<void> {
    if (refs.length === 0) return;
    const isId = (id: number) => Number.isInteger(id) && id >= 1 && id <= MAX_ID;
    const unknown = new Set(await deps.labels.unknownLabels(entityId, refs.map((r) => r.id).filter(isId)));
    const errors = refs.filter((r) => !isId(r.id) || unknown.has(r.id)).map((r) => ({ field: r.at, message: `${r.id} is not a label of the entity` }));
    if (errors.length > 0) throw validationFailed(errors, 'The workflow is not valid');
  }

  async function load(p: Principal, id: number, lock = false) {
    const row = await repo.findWorkflow(db, p.entityId, id, lock);
    if (!row) throw notFound('workflow', id);
    return row;
  }

  const nextRun = (trigger: TriggerDefinition, enabled: boolean, entityId: number, zone: string) =>
    enabled && trigger.trigger_type === 'scheduled' ? deps.nextRunAt(trigger.filters, entityId, zone) : null;

  return {
    presets: () => ({ data: PRESET_CARDS.map((c) => ({ ...c, filters: [...c.filters], inputs: [...c.inputs], ...(c.steps ? { steps: [...c.steps] } : {}) })) }),
    fieldRegistry: () => ({
      data: TRIGGER_EVENTS.map((event) => ({
        event,
        status: EVENT_STATUS[event],
        fields: FIELD_REGISTRY[event].map(({ values, ...f }) => ({ ...f, operators: [...f.operators], ...(values ? { values: [...values] } : {}) })),
      })),
    }),

    async create(p: Principal, body: WorkflowCreateBody): Promise<WorkflowResponse> {
      const trigger = triggerOf(body);
      const steps = body.steps ?? presetSteps(body);
      if (steps === undefined) throw validationFailed([{ field: '/body/steps', message: 'steps are required (the preset proposes none)' }]);
      const definition: Definition = { trigger, steps };
      check(definition);
      await checkLabels(p.entityId, labelReferences({ steps, filters: body.filters }));
      const enabled = body.enabled ?? true;
      const zone = await deps.timeZoneOf(p.entityId);
      const id = await transaction(db, async ({ tx }) => {
        const wf = await repo.insertWorkflow(tx, {
          entityId: p.entityId,
          name: body.name.trim(),
          description: body.description ?? null,
          enabled,
          version: 1,
          createdByEmployeeId: p.employeeId,
          updatedByEmployeeId: p.employeeId,
        });
        await repo.insertVersion(tx, { entityId: p.entityId, workflowId: wf.id, version: 1, definition, createdByEmployeeId: p.employeeId });
        await repo.saveTrigger(tx, {
          entityId: p.entityId,
          workflowId: wf.id,
          triggerType: definition.trigger.trigger_type,
          presetCode: definition.trigger.preset_code,
          filters: definition.trigger.filters,
          enabled,
          nextRunAt: nextRun(definition.trigger, enabled, p.entityId, zone),
        });
        return wf.id;
      });
      return toWorkflowResponse(await load(p, id));
    },

    async get(p: Principal, id: number): Promise<WorkflowResponse> {
      return toWorkflowResponse(await load(p, id), canEdit(p));
    },

    async list(p: Principal, q: WorkflowListQuery) {
      const { rows, total } = await repo.listWorkflows(db, p.entityId, { limit: q.limit, offset: q.offset, triggerType: q.trigger_type, enabled: q.enabled });
      return { data: rows.map((r) => toWorkflowResponse(r, canEdit(p))), pagination: { limit: q.limit, offset: q.offset, total } };
    },

    /** PATCH: name, description and enabled in place; trigger or steps as a new version. */
    async update(p: Principal, id: number, body: WorkflowUpdateBody): Promise<WorkflowResponse> {
      // The labels the body names (steps and filters it keeps were checked when saved), after the 404 of another entity's workflow.
      const labelRefs = labelReferences(body);
      if (labelRefs.length > 0) await load(p, id);
      await checkLabels(p.entityId, labelRefs);
      const zone = await deps.timeZoneOf(p.entityId);
      await transaction(db, async ({ tx }) => {
        const current = await repo.findWorkflow(tx, p.entityId, id, true);
        if (!current) throw notFound('workflow', id);
        const before = current.definition as Definition;
        const triggerChanged =
          body.preset_code !== undefined || body.preset_values !== undefined || body.trigger_type !== undefined || body.filters !== undefined;
        let trigger = before.trigger;
        if (triggerChanged) {
          // What the body leaves out is kept: the preset, its values and extra filters, or the explicit trigger.
          const presetCode = body.preset_code === undefined ? before.trigger.preset_code : body.preset_code;
          const samePreset = presetCode !== null && presetCode === before.trigger.preset_code;
          trigger = triggerOf({
            preset_code: presetCode,
            preset_values: body.preset_values ?? (samePreset ? before.trigger.preset_values : undefined),
            trigger_type: body.trigger_type ?? (presetCode === null ? before.trigger.trigger_type : undefined),
            filters:
              body.filters ??
              (presetCode === null ? (before.trigger.preset_code === null ? before.trigger.filters : []) : samePreset ? before.trigger.extra_filters : []),
          });
        }
        const definition: Definition = { trigger, steps: body.steps ?? before.steps };
        const newVersion = triggerChanged || body.steps !== undefined;
        if (newVersion) check(definition);
        const enabled = body.enabled ?? current.workflow.enabled;
        const version = newVersion ? current.workflow.version + 1 : current.workflow.version;
        if (newVersion) await repo.insertVersion(tx, { entityId: p.entityId, workflowId: id, version, definition, createdByEmployeeId: p.employeeId });
        await repo.updateWorkflow(tx, id, {
          ...(body.name !== undefined ? { name: body.name.trim() } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          enabled,
          version,
          updatedByEmployeeId: p.employeeId,
        });
        if (newVersion || enabled !== current.workflow.enabled) {
          await repo.saveTrigger(tx, {
            entityId: p.entityId,
            workflowId: id,
            triggerType: trigger.trigger_type,
            presetCode: trigger.preset_code,
            filters: trigger.filters,
            enabled,
            nextRunAt: nextRun(trigger, enabled, p.entityId, zone),
          });
        }
      });
      return toWorkflowResponse(await load(p, id));
    },

    async remove(p: Principal, id: number): Promise<void> {
      if (!(await repo.deleteWorkflow(db, p.entityId, id))) throw notFound('workflow', id);
    },

    async versions(p: Principal, id: number) {
      await load(p, id);
      const rows = await repo.listVersions(db, p.entityId, id);
      const show = canEdit(p);
      return {
        data: rows.map((v) => ({
          version: v.version,
          definition: { ...(v.definition as Definition), steps: stepsFor((v.definition as Definition).steps, show) },
          created_by_employee_id: v.createdByEmployeeId,
          created_at: v.createdAt.toISOString(),
        })),
      };
    },
  };
}

export type WorkflowService = ReturnType<typeof createWorkflowService>;

/** What a webhook step's header values show to a caller who cannot edit the workflow (names stay). */
const HIDDEN_HEADER_VALUE = '[hidden]';

/** Webhook headers carry credentials: only those who may change them (`workflows.manage`) see their values. */
function canEdit(p: Principal): boolean {
  return p.permissions.has('workflows.manage');
}

function stepsFor(steps: Definition['steps'], showHeaders: boolean): Definition['steps'] {
  if (showHeaders) return steps;
  return steps.map((s) =>
    s.action === 'webhook' && s.headers ? { ...s, headers: Object.fromEntries(Object.keys(s.headers).map((name) => [name, HIDDEN_HEADER_VALUE])) } : s,
  );
}

/** `showHeaders` false replaces webhook header values with `HIDDEN_HEADER_VALUE`. */
function toWorkflowResponse(r: repo.WorkflowWithTrigger, showHeaders = true): WorkflowResponse {
  const d = r.definition as Definition;
  return {
    id: r.workflow.id,
    name: r.workflow.name,
    description: r.workflow.description,
    enabled: r.workflow.enabled,
    version: r.workflow.version,
    trigger: {
      trigger_type: r.trigger.triggerType as TriggerEvent,
      preset_code: r.trigger.presetCode,
      filters: r.trigger.filters as unknown[],
      ...(r.trigger.triggerType === 'scheduled' ? { next_run_at: r.trigger.nextRunAt?.toISOString() ?? null } : {}),
    },
    steps: stepsFor(d.steps, showHeaders),
    created_at: r.workflow.createdAt.toISOString(),
    updated_at: r.workflow.updatedAt.toISOString(),
  };
}
