/**
 * Prometheus metrics at `/metrics`: request counts and latency histograms per route template, plus the
 * process defaults. One registry per app instance, so several apps in one process do not collide.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    });
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method and route template',
      labelNames: ['method', 'route'] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
    app.decorate('metrics', registry);
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      requests.inc({ method: request.method, route, status_code: reply.statusCode });
      duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
    app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) => {
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  },
  { name: 'metrics' },
);

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}
