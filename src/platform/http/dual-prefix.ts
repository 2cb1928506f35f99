/**
 * DESIGN "Paths": the groups SPEC lists without `/api` (CRM data, interactions, media) are served both
 * bare and under `/api` from one registration. The `/api` copy is hidden from the OpenAPI document,
 * which states the rule once (docs/api.md).
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

/** Registers `plugin` at `/` and at `/api`. */
export async function registerBareAndApi<Options extends object>(
  app: FastifyInstance,
  plugin: FastifyPluginAsync<Options>,
  options: Options,
): Promise<void> {
  await app.register(plugin, options);
  await app.register(async (api) => {
    api.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await api.register(plugin, options);
  }, { prefix: '/api' });
}
