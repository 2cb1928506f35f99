/**
 * Lets `app.close()` wait for the requests still being handled. Fastify's close waits for open
 * connections only, so a request whose client disconnected (a load balancer's timeout, a closed tab)
 * goes on running after close resolves, and its next query would meet a closed database ("Cannot use a
 * pool after calling end on the pool"). A request counts from `onRequest` until both its reply was sent
 * (`onSend`: the handler, or the error handler, is done) and its response closed (finished, or the client
 * gone). Close waits for the count to reach zero, at most `DRAIN_TIMEOUT_MS`; whatever is left then is
 * logged and abandoned.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Longest `app.close()` waits for requests in flight, in milliseconds (the process's own stop timer is 30 s). */
const DRAIN_TIMEOUT_MS = 10_000;

const kSent = Symbol('in-flight: reply sent');
/** A request with the callback its `onSend` calls. */
type TrackedRequest = FastifyRequest & { [kSent]?: () => void };

export const inFlightPlugin = fp(
  async (app: FastifyInstance) => {
    let inFlight = 0;
    let drained: (() => void) | undefined;
    const settle = () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    };

    app.addHook('onRequest', (request, reply, done) => {
      inFlight++;
      let sent = false;
      let closed = false;
      (request as TrackedRequest)[kSent] = () => {
        if (sent) return;
        sent = true;
        if (closed) settle();
      };
      reply.raw.once('close', () => {
        closed = true;
        if (sent) settle();
      });
      done();
    });
    app.addHook('onSend', (request, _reply, payload, done) => {
      (request as TrackedRequest)[kSent]?.();
      done(null, payload);
    });

    // onClose hooks run once the server has stopped accepting connections: the count can only fall.
    app.addHook('onClose', async () => {
      if (inFlight === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (drained = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      if (inFlight > 0) app.log.warn({ inFlight, timeoutMs: DRAIN_TIMEOUT_MS }, 'closing with requests still in flight');
    });
  },
  { name: 'in-flight' },
);
