/** The send latency histogram (docs/operations.md "Metrics"), registered on the service's registry. */
import { Histogram, type Registry } from 'prom-client';

/** `interactions_send_latency_seconds{platform}`: from an outbound message being stored to the platform accepting it (retries included). */
export function registerSendLatency(metrics: Registry): Histogram<'platform'> {
  const histogram = new Histogram({
    name: 'interactions_send_latency_seconds',
    help: 'Seconds from an outbound message being stored to the platform accepting it, by platform (retries included)',
    labelNames: ['platform'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [],
  });
  metrics.registerMetric(histogram);
  return histogram;
}
