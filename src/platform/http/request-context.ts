/**
 * Who is asking, for records made deep inside a request (the audit trail, issue 54): the request id and the
 * client's address, kept in an AsyncLocalStorage for the time of the handler, so services need not carry them.
 * Outside a request (jobs, the CLI) there is none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface RequestContext {
  readonly requestId: string;
  /** The client's address as Fastify reads it (`trustProxy` decides whether X-Forwarded-For counts). */
  readonly clientAddress: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The request being handled, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Opens the context in `preHandler`, after the body was read (a stream's events would lose it), so the handler
 * and everything it awaits see it; the callback form lets the rest of the hook chain run inside `run`.
 */
export const requestContextPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preHandler', (request, _reply, done) => {
      storage.run({ requestId: request.id, clientAddress: request.ip }, done);
    });
  },
  { name: 'request-context' },
);
