import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { createFormsService } from './forms.service.js';
import { formsRoutes } from './forms.routes.js';
import { registerRoutes } from '../../platform/http/dual-prefix.js';

export { seedFormsDemo } from './demo.seed.js';

/** Registers `POST /api/interactions/forms/ingest`. */
export async function registerFormsModule(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await registerRoutes(app, formsRoutes, { prefix: '/api/interactions/forms', service: createFormsService({ db: ctx.db, events: ctx.events }) });
}
