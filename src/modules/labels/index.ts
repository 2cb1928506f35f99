/**
 * Labels (issue 49): the entity's one catalogue of labels. Conversations (interactions), contacts and leads
 * (records) keep their own links to it; this module answers whether ids are labels of an entity. It calls no other module.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi } from '../../platform/http/dual-prefix.js';
import { labelRoutes } from './label.routes.js';
import { createLabels, type Labels } from './label.service.js';

export type { Labels } from './label.service.js';
export { AddLabelsBody, AppliedLabel, LabelFilterQuery, LabelIds, LabelParams } from './label.schemas.js';
export { seedLabelsDemo } from './label.demo.js';

/** Registers `/labels` bare and under `/api`; returns the catalogue for the subjects' owners. */
export async function registerLabelsModule(app: FastifyInstance, ctx: AppContext): Promise<Labels> {
  const labels = createLabels({ db: ctx.db });
  await registerBareAndApi(app, labelRoutes, { labels });
  return labels;
}
