/**
 * Shutdown drain (docs/operations.md "Shutdown and rolling updates"). `app.drain.begin()` (on SIGTERM) turns
 * `/readyz` to 503 at once, so that load balancers stop routing here, while requests are still served; once
 * `app.close()` has begun, a request that still arrives on an open connection is answered 503
 * `service_draining` with `Retry-After` and `Connection: close` (never another 5xx): its client retries, on
 * another instance. Requests in flight finish (in-flight.ts).
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Seconds a client is told to wait before retrying a request refused while draining. */
const DRAIN_RETRY_AFTER_SECONDS = 1;

interface DrainState {
  /** True from `begin()` on: `/readyz` answers 503. */
  readonly draining: boolean;
  begin(): void;
}

/** The 503 of an instance that is shutting down (`/readyz` and requests refused during close). */
export function drainingError(detail: string): AppError {
  return new AppError(503, 'service_draining', 'Service unavailable', detail, {}, { 'Retry-After': String(DRAIN_RETRY_AFTER_SECONDS), Connection: 'close' });
}

export const drainPlugin = fp(
  async (app: FastifyInstance) => {
    let draining = false;
    let closing = false;
    app.decorate('drain', {
      get draining() {
        return draining;
      },
      begin() {
        draining = true;
      },
    } satisfies DrainState);
    app.addHook('preClose', async () => {
      draining = true;
      closing = true;
    });
    app.addHook('onRequest', async () => {
      if (closing) throw drainingError('This instance is shutting down; retry the request, another instance will answer it');
    });
  },
  { name: 'drain' },
);

declare module 'fastify' {
  interface FastifyInstance {
    drain: DrainState;
  }
}
