/**
 * DESIGN "Paths": the groups SPEC lists without `/api` (CRM data, interactions, media) are served both
 * bare and under `/api` from one registration. Both are in the OpenAPI document, so a generated client
 * types every path it may call (issue 28); the `/api` copy's operationId is the bare one's with an `api`
 * prefix (`getGroups` → `apiGetGroups`), and a hidden bare route stays hidden under `/api`. Every route
 * plugin is registered through here, named.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Registers `plugin` at `/` and at `/api`. Both registrations and the `/api` scope carry a plugin name (the
 * function's), still encapsulated: Fastify looks an unnamed plugin up among every loaded CommonJS module first.
 */
export async function registerBareAndApi<Options extends object>(app: FastifyInstance, routes: FastifyPluginAsync<Options>, options: Options): Promise<void> {
  const plugin = named(routes);
  await app.register(plugin, options);
  await app.register(
    fp(
      async (api) => {
        // Runs after the root's OpenAPI conventions (openapi.ts), which gave the copy the bare operationId.
        api.addHook('onRoute', (route) => {
          const operationId = route.schema?.operationId;
          if (!route.schema || route.schema.hide || !operationId) return;
          route.schema = { ...route.schema, operationId: `api${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}` };
        });
        await api.register(plugin, options);
      },
      { name: `/api ${nameOf(routes)}`, encapsulate: true },
    ),
    { prefix: '/api' },
  );
}

/** Registers `routes` once (with its options, `prefix` included), under the routes' name, as `registerBareAndApi` does. */
export async function registerRoutes<Options extends object>(
  app: FastifyInstance,
  routes: FastifyPluginAsync<Options>,
  options: Options & { prefix?: string },
): Promise<void> {
  await app.register(named(routes), options);
}

/** The name a route plugin is registered under: its function's. */
function nameOf(routes: { name: string }): string {
  return routes.name || 'routes';
}

/**
 * `routes` as an encapsulated plugin that carries its name: Fastify looks an unnamed plugin up among every
 * loaded CommonJS module first.
 */
function named<Options extends object>(routes: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return fp(routes, { name: nameOf(routes), encapsulate: true });
}
