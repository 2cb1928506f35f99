/**
 * The webhook intake's gauges on the service's Prometheus registry (docs/operations.md "Background jobs"):
 * `interactions_inbox_dead_letters`, `interactions_inbox_pending_events` and `interactions_webhook_lag_seconds`,
 * read at scrape time (one query serves both lag gauges of a scrape).
 */
import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../../../db/client.js';
import { readOncePerScrape } from '../../../platform/scrape-reading.js';
import { countDead, pendingLag } from './intake.repository.js';

export function registerIntakeMetrics(metrics: Registry, db: Db): void {
  metrics.registerMetric(
    new Gauge({
      name: 'interactions_inbox_dead_letters',
      help: 'Inbound webhook events on the dead-letter list (permanent failures and exhausted retries)',
      registers: [],
      async collect() {
        this.set(await countDead(db).catch(() => 0));
      },
    }),
  );
  const readLag = readOncePerScrape(
    () => pendingLag(db),
    () => ({ pending: 0, oldestAgeSeconds: 0 }),
  );
  metrics.registerMetric(
    new Gauge({
      name: 'interactions_inbox_pending_events',
      help: 'Inbound webhook events accepted and not yet projected (retries included)',
      registers: [],
      async collect() {
        this.set((await readLag()).pending);
      },
    }),
  );
  metrics.registerMetric(
    new Gauge({
      name: 'interactions_webhook_lag_seconds',
      help: 'Age of the oldest accepted inbound webhook event not yet projected; 0 when none waits',
      registers: [],
      async collect() {
        this.set((await readLag()).oldestAgeSeconds);
      },
    }),
  );
}
