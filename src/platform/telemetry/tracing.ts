/**
 * OpenTelemetry traces (docs/operations.md "Traces"). Off unless configured: `startTracing` registers a
 * global tracer provider exporting over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`; the service's spans are
 * HTTP requests (@fastify/otel), database statements (`traceDatabaseClient` in `src/db/tracing.ts`), queue jobs and outbound
 * calls to the ERP and the communications service (`withClientSpan`). With no provider registered the
 * helpers cost one no-op call.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { TRACER_NAME } from '../../db/tracing.js';

/** The service's tracer (the global provider's; a no-op one until tracing is started). */
function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

export interface Tracing {
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Registers the global tracer provider (async-hooks context, W3C `traceparent` propagation). `endpoint` is
 * the OTLP/HTTP base URL (spans go to `<endpoint>/v1/traces`); `processors` replace the OTLP exporter (tests
 * pass an in-memory one).
 */
export function startTracing(options: { serviceName: string; endpoint?: string | undefined; processors?: SpanProcessor[] }): Tracing {
  const processors = options.processors ?? [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${(options.endpoint ?? '').replace(/\/$/, '')}/v1/traces` }))];
  const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': options.serviceName }), spanProcessors: processors });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return {
    async shutdown() {
      await provider.shutdown();
    },
  };
}

/**
 * Runs `fn` inside a span (active for everything `fn` awaits), ending it with `fn`'s outcome: an error is
 * recorded and rethrown.
 */
export async function inSpan<T>(name: string, options: { kind: SpanKind; attributes?: Attributes }, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind: options.kind, attributes: options.attributes ?? {} }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * An outbound HTTP call (ERP, communications service) as a CLIENT span named `<peer> <operation>`: `fn`
 * sends the `headers` given (the span's `traceparent`) and reports the answer's status with `answered`;
 * an error `fn` throws fails the span.
 */
export function withClientSpan<T>(
  peer: string,
  operation: string,
  attributes: Attributes,
  fn: (headers: Record<string, string>, answered: (status: number) => void) => Promise<T>,
): Promise<T> {
  return inSpan(`${peer} ${operation}`, { kind: SpanKind.CLIENT, attributes: { 'peer.service': peer, ...attributes } }, async (span) => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    return fn(headers, (status) => span.setAttribute('http.response.status_code', status));
  });
}
