/**
 * Message templates of the entity (issue "Conversations out" §5): stored here, submitted to the
 * communications service for the platform's review, their status kept in sync (on create, by
 * `list({ sync: true })`, and by the platform's template-status webhook through `applyReviews`).
 * `checkSend` is the gate of every template send: the template must exist and be approved, and the
 * send's parameters must match its components (template-parameters.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/client.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../../platform/errors.js';
import { isCommunicationsError, type CommunicationsClient } from '../../../integrations/communications/index.js';
import type { CommunicationsConfigService } from '../communications/index.js';
import * as repo from './template.repository.js';
import type { TemplateCreateBody, TemplateDefinitionComponent, TemplateResponse, TemplateUpdateBody } from './template.schemas.js';
import type { TemplateMessageBody } from './template-message.schemas.js';
import { checkTemplateDefinition, checkTemplateParameters } from './template-parameters.js';
import { TEMPLATE_STATUSES, type TemplateStatus } from '../model/index.js';

/** A template's review outcome from Meta's `message_template_status_update` webhook field. */
export interface TemplateReview {
  /** Meta's template id (`message_template_id`), as we stored it when the template was submitted. */
  providerTemplateId: string;
  /** Meta's word: `APPROVED`, `REJECTED`, `PAUSED`, `DISABLED`, `PENDING_DELETION`... */
  event: string;
  /** Meta's reason, null for `NONE`. */
  reason: string | null;
}

export interface TemplateService {
  list(entityId: number, q: { status?: TemplateStatus | undefined; sync?: boolean | undefined }): Promise<{ data: TemplateResponse[] }>;
  create(entityId: number, body: TemplateCreateBody): Promise<TemplateResponse>;
  update(entityId: number, id: number, body: TemplateUpdateBody): Promise<TemplateResponse>;
  remove(entityId: number, id: number): Promise<void>;
  /**
   * Applies the review outcomes of a template-status webhook to the templates submitted under those ids;
   * an id no template has is logged and skipped. Returns how many templates changed.
   */
  applyReviews(reviews: readonly TemplateReview[]): Promise<number>;
  /** Throws 422 `template_not_found`, `template_not_approved` or `invalid_template_parameters` (with `errors[]`). */
  checkSend(entityId: number, send: TemplateMessageBody): Promise<void>;
}

const toResponse = (r: repo.TemplateRow): TemplateResponse => ({
  id: r.id,
  name: r.name,
  language: r.language,
  category: r.category,
  parameter_format: r.parameterFormat,
  components: r.components as unknown[],
  status: r.status,
  provider_template_id: r.providerTemplateId,
  rejection_reason: r.rejectionReason,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/** Platform words for a template that cannot be sent (but is not rejected): ours is `paused`. */
const UNSENDABLE = new Set(['disabled', 'pending_deletion', 'deleted', 'archived', 'locked']);
/** Platform words for a template that can be sent again, or still: ours is `approved`. */
const SENDABLE = new Set(['reinstated', 'flagged', 'unlocked']);

/**
 * The platform's status or review-event word (`APPROVED`, `REJECTED`, `PAUSED`, `PENDING`, `IN_APPEAL`,
 * `DISABLED`, `REINSTATED`, `FLAGGED`...) as ours; unknown words count as pending.
 */
function templateStatusOf(platformStatus: string): TemplateStatus {
  const s = platformStatus.toLowerCase();
  if ((TEMPLATE_STATUSES as readonly string[]).includes(s)) return s as TemplateStatus;
  return UNSENDABLE.has(s) ? 'paused' : SENDABLE.has(s) ? 'approved' : 'pending';
}

export function createTemplateService(deps: {
  db: Db;
  client: CommunicationsClient;
  config: CommunicationsConfigService;
  log: FastifyBaseLogger;
}): TemplateService {
  const { db } = deps;
  const validate = (components: TemplateDefinitionComponent[], format: 'positional' | 'named') => {
    const errors = checkTemplateDefinition(components, format);
    if (errors.length > 0) throw validationFailed(errors);
  };
  /** Submits the template for review; a failure leaves it pending locally, to be submitted by a later sync. */
  const submit = async (row: repo.TemplateRow): Promise<repo.TemplateRow> => {
    try {
      const target = await deps.config.resolveTarget(row.entityId);
      const answer = await deps.client.createTemplate(target, {
        name: row.name,
        language: row.language,
        category: row.category.toUpperCase(),
        parameter_format: row.parameterFormat.toUpperCase(),
        components: row.components as unknown[],
      });
      return (
        (await repo.updateTemplate(db, row.entityId, row.id, { providerTemplateId: answer.providerTemplateId, status: templateStatusOf(answer.status) })) ?? row
      );
    } catch (err) {
      if (!isCommunicationsError(err) && (err as { code?: string }).code !== 'communications_not_configured') throw err;
      deps.log.warn({ err, templateId: row.id }, 'template not submitted for review; the next sync submits it');
      return row;
    }
  };
  return {
    async list(entityId, q) {
      if (q.sync === true) {
        const target = await deps.config.resolveTarget(entityId);
        const remote = await deps.client.listTemplates(target).catch((err: unknown) => {
          if (isCommunicationsError(err)) throw unprocessable('communications_unavailable', `The communications service could not be reached: ${err.message}`);
          throw err;
        });
        const byKey = new Map(remote.map((t) => [`${t.name}|${t.language}`, t]));
        for (const row of await repo.listTemplates(db, entityId)) {
          const r = byKey.get(`${row.name}|${row.language}`);
          if (r === undefined) {
            if (row.providerTemplateId === null) await submit(row);
            continue;
          }
          const status = templateStatusOf(r.status);
          if (status !== row.status || r.id !== row.providerTemplateId)
            await repo.updateTemplate(db, entityId, row.id, { status, providerTemplateId: r.id, rejectionReason: r.rejected_reason ?? null });
        }
      }
      return { data: (await repo.listTemplates(db, entityId, q.status)).map(toResponse) };
    },
    async create(entityId, body) {
      const format = body.parameter_format ?? 'positional';
      validate(body.components, format);
      const row = await repo.insertTemplate(db, {
        entityId,
        name: body.name,
        language: body.language,
        category: body.category,
        parameterFormat: format,
        components: body.components,
      });
      if (!row) throw conflict('already_exists', `The entity already has a template ${body.name} in ${body.language}`);
      return toResponse(await submit(row));
    },
    async update(entityId, id, body) {
      const row = await repo.findTemplate(db, entityId, id);
      if (!row) throw notFound('template', id);
      if (body.components !== undefined) validate(body.components, row.parameterFormat);
      // A changed template is reviewed again: resubmitted when the platform knows it, else submitted by the next sync.
      const updated = (await repo.updateTemplate(db, entityId, id, {
        ...(body.category !== undefined ? { category: body.category } : {}),
        ...(body.components !== undefined ? { components: body.components } : {}),
        status: 'pending',
      }))!;
      if (updated.providerTemplateId === null) return toResponse(updated);
      try {
        const target = await deps.config.resolveTarget(entityId);
        const answer = await deps.client.updateTemplate(target, updated.providerTemplateId, {
          category: updated.category.toUpperCase(),
          components: updated.components as unknown[],
        });
        return toResponse((await repo.updateTemplate(db, entityId, id, { status: templateStatusOf(answer.status) }))!);
      } catch (err) {
        if (!isCommunicationsError(err) && (err as { code?: string }).code !== 'communications_not_configured') throw err;
        deps.log.warn({ err, templateId: id }, 'changed template not resubmitted for review');
        return toResponse(updated);
      }
    },
    async remove(entityId, id) {
      const row = await repo.findTemplate(db, entityId, id);
      if (!row) throw notFound('template', id);
      if (row.providerTemplateId !== null) {
        const target = await deps.config.resolveTarget(entityId);
        await deps.client.deleteTemplate(target, row.providerTemplateId).catch((err: unknown) => {
          // Already gone there is what we want; anything else keeps the template so nothing is orphaned.
          if (isCommunicationsError(err) && err.details.status === 404) return;
          if (isCommunicationsError(err))
            throw unprocessable('communications_unavailable', `The communications service could not delete the template: ${err.message}`);
          throw err;
        });
      }
      await repo.deleteTemplate(db, entityId, id);
    },
    async applyReviews(reviews) {
      let changed = 0;
      for (const review of reviews) {
        const status = templateStatusOf(review.event);
        const rows = await repo.applyReview(db, review.providerTemplateId, { status, rejectionReason: status === 'rejected' ? review.reason : null });
        if (rows.length === 0)
          deps.log.info({ providerTemplateId: review.providerTemplateId, event: review.event }, 'template review for a template this service does not hold');
        changed += rows.length;
      }
      return changed;
    },
    async checkSend(entityId, send) {
      const row = await repo.findTemplateByName(db, entityId, send.name, send.language.code);
      if (!row) throw unprocessable('template_not_found', `The entity has no template ${send.name} in ${send.language.code}`);
      if (row.status !== 'approved')
        throw unprocessable('template_not_approved', `Template ${send.name} is ${row.status}; only approved templates can be sent`, { status: row.status });
      const errors = checkTemplateParameters(row.components as TemplateDefinitionComponent[], row.parameterFormat, send.components);
      if (errors.length > 0) throw unprocessable('invalid_template_parameters', 'The parameters do not match the template', { errors });
    },
  };
}
