/**
 * DESIGN "Paths": the groups SPEC lists without `/api` (CRM data, interactions, media) are served both
 * bare and under `/api` from one registration. Both are in the OpenAPI document, so a generated client
 * types every path it may call (issue 28); the `/api` copy's operationId is the bare one's with an `api`
 * prefix (`getGroups` → `apiGetGroups`), and a hidden bare route stays hidden under `/api`.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

/** Registers `plugin` at `/` and at `/api`. */
export async function registerBareAndApi<Options extends object>(app: FastifyInstance, plugin: FastifyPluginAsync<Options>, options: Options): Promise<void> {
  await app.register(plugin, options);
  await app.register(
    async (api) => {
      // Runs after the root's OpenAPI conventions (openapi.ts), which gave the copy the bare operationId.
      api.addHook('onRoute', (route) => {
        const operationId = route.schema?.operationId;
        if (!route.schema || route.schema.hide || !operationId) return;
        route.schema = { ...route.schema, operationId: `api${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}` };
      });
      await api.register(plugin, options);
    },
    { prefix: '/api' },
  );
}
