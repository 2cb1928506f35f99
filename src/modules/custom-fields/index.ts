import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import { createRecordLookup } from '../records/index.js';
import { customFieldRoutes } from './custom-field.routes.js';
import { customFieldValueRoutes } from './custom-field-value.routes.js';
import { createCustomFieldService } from './custom-field.service.js';
import { createCustomFieldValueService, type MediaReferences } from './custom-field-value.service.js';
import { createCustomFieldTexts, type CustomFieldTexts } from './custom-field-text.service.js';

export { seedCustomFieldsDemo } from './demo.seed.js';
export type { CustomFieldTexts } from './custom-field-text.service.js';

/**
 * Registers custom field types, groups, fields and values, bare and under `/api`; `media` checks and signs
 * media-valued fields. Returns `texts`: fields and values as text, for the modules that write to customers.
 */
export async function registerCustomFieldsModule(app: FastifyInstance, ctx: AppContext, media: MediaReferences): Promise<{ texts: CustomFieldTexts }> {
  const service = createCustomFieldService({ db: ctx.db });
  const values = createCustomFieldValueService({ db: ctx.db, recordExists: createRecordLookup(ctx.db), media });
  const plugin: FastifyPluginAsyncTypebox = async (scope) => {
    await registerRoutes(scope, customFieldRoutes, { service });
    await registerRoutes(scope, customFieldValueRoutes, { service: values });
  };
  await registerBareAndApi(app, plugin, {});
  return { texts: createCustomFieldTexts({ db: ctx.db }) };
}
