/**
 * Security headers on every response: helmet's, with the options given (app.ts sets the CSP, frame and
 * referrer policies). The middleware is built once per process and run on each request's raw response, as
 * helmet is meant to be used: a per-request build parsed the CSP directives again for every request.
 * A route that needs a stricter policy sets its own header after this hook (storage.ts for media).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

export const securityHeaders = fp(
  async (app: FastifyInstance, options: HelmetOptions) => {
    const apply = helmet(options);
    app.addHook('onRequest', (request, reply, done) => apply(request.raw, reply.raw, (err?: unknown) => done(err instanceof Error ? err : undefined)));
  },
  { name: 'security-headers' },
);
