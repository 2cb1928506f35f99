/**
 * Database statements as spans. Lives in src/db (not with the rest of tracing in platform/telemetry) so
 * that the database layer depends on nothing of ours above it; the provider it reports to is the global
 * one `startTracing` registers.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** The service's tracer name, shared with `platform/telemetry/tracing.ts`. */
export const TRACER_NAME = 'crm-backend';

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Makes every statement of a node-postgres client (pool connections included) or a PGlite instance run
 * inside a request or job a CLIENT span `db.query` carrying the statement text (parameters are never recorded).
 */
export function traceDatabaseClient(client: object, methods: readonly string[] = ['query']): void {
  const target = client as Record<string, QueryFn>;
  for (const method of methods) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    target[method] = function traced(this: unknown, ...args: unknown[]) {
      const first = args[0] as { text?: unknown; submit?: unknown } | string | undefined;
      // Submittables (cursors, streams) report their own completion: passed through untraced. So is a
      // statement outside any request or job (queue polling, maintenance): it would be a trace of its own.
      if (typeof first === 'object' && first !== null && typeof first.submit === 'function') return original.apply(this, args);
      if (trace.getSpan(context.active()) === undefined) return original.apply(this, args);
      const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
      const span = trace
        .getTracer(TRACER_NAME)
        .startSpan('db.query', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'db.query.text': text.slice(0, 2000) } });
      const end = (err?: unknown) => {
        if (err) span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : 'query failed' });
        span.end();
      };
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last] as (err: unknown, ...rest: unknown[]) => void;
        args[last] = (err: unknown, ...rest: unknown[]) => {
          end(err);
          callback(err, ...rest);
        };
        return context.with(trace.setSpan(context.active(), span), () => original.apply(this, args));
      }
      const result = context.with(trace.setSpan(context.active(), span), () => original.apply(this, args));
      if (result instanceof Promise)
        result.then(
          () => end(),
          (err: unknown) => end(err),
        );
      else end();
      return result;
    };
  }
}
