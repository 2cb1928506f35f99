import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/helpers/longest-first-sequencer.js';

/**
 * Three projects, each runnable alone (`npm run test:unit`, `test:integration`, `test:process`); `npm test`
 * runs all three. A new test file lands in `integration` unless it is listed below.
 */

/** No database, no app: pure functions and schemas; seconds. `createTestDatabase` refuses to run here. */
const unitFiles = [
  'test/architecture/boundaries.test.ts',
  'test/architecture/channel-pipeline.test.ts',
  'test/architecture/one-publisher.test.ts',
  'test/architecture/transactions.test.ts',
  'test/cli/webhooks-listen.test.ts',
  'test/integrations/erp/erp-client.test.ts',
  'test/modules/commerce/totals.test.ts',
  'test/modules/custom-fields/custom-field-kinds.test.ts',
  'test/modules/erp-session/erp-session-state.test.ts',
  'test/modules/interactions/normalize.test.ts',
  'test/modules/search/search-query.test.ts',
  'test/modules/interactions/business-time.test.ts',
  'test/modules/interactions/realtime-contract.test.ts',
  'test/modules/interactions/routing-conditions.test.ts',
  'test/modules/interactions/sla-clock.test.ts',
  'test/modules/invoices/invoice-lines.test.ts',
  'test/modules/workflows/filter-engine.test.ts',
  'test/platform/contract-check.test.ts',
  'test/platform/crypto/sealed-box.test.ts',
  'test/platform/permission-resolution.test.ts',
  'test/platform/schema-compilers.test.ts',
  'test/platform/xlsx/workbook-writer.test.ts',
];

/**
 * The service as child processes (test/helpers/service-process.ts or a plain spawn of src/main.ts): several
 * instances, a SIGKILL and a restart, signals and terminal output; and a headless Chromium (the widget). The multi-instance ones run only on
 * PostgreSQL (TEST_DATABASE_URL).
 */
const processFiles = [
  'test/modules/interactions/crash-recovery.test.ts',
  'test/modules/interactions/send-crash.test.ts',
  'test/platform/concurrent-start.test.ts',
  'test/modules/interactions/web-widget.browser.test.ts',
  'test/modules/interactions/web-widget-customer.browser.test.ts',
  'test/modules/workflows/crash-recovery.test.ts',
  'test/platform/multi-instance.test.ts',
  'test/platform/multi-instance-sla.test.ts',
  'test/platform/multi-instance-visibility.test.ts',
  'test/platform/multi-instance-widget.test.ts',
  'test/platform/rolling-deploy.test.ts',
  'test/platform/start-and-shutdown.test.ts',
  'test/platform/terminal-logs.test.ts',
];

const testForks = Math.max(1, Number(process.env.TEST_FORKS ?? 2));

export default defineConfig({
  test: {
    // Each file has its own database (see test/helpers/global-setup.ts). Files share their worker process and its
    // loaded modules (`isolate: false` in unit and integration): loading the service's module graph again for
    // every file cost more than most files' tests. Nothing a file sets up outlives it: apps, databases, servers
    // and timers are closed in its hooks. The process project keeps isolation: it spawns and kills services.
    pool: 'forks',
    // `isolate: false` here is what lets a worker process outlive its first file (the pool reads only the root's
    // pool options); each project's own `isolate` then says whether a file starts from fresh modules. As many
    // workers at least as at most: the pool stops a worker it finds idle beyond the minimum, and a file handed
    // to it meanwhile dies with it ("Terminating worker thread").
    // TEST_FORKS (default 2, one per core): the PostgreSQL pass of `.ci/run` uses 3, since its process tests spend
    // much of their time waiting on the services they spawn and on the database server.
    poolOptions: { forks: { maxForks: testForks, minForks: testForks, isolate: false } },
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: unitFiles, isolate: false, provide: { databaseAllowed: false } } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...unitFiles, ...processFiles],
          isolate: false,
          provide: { keepDatabases: true },
          globalSetup: ['test/helpers/global-setup.ts'],
          // Fails a file whose responses the OpenAPI document does not describe (HTTP_CONTRACT_CHECK).
          setupFiles: ['test/helpers/contract-setup.ts'],
        },
      },
      { extends: true, test: { name: 'process', include: processFiles, isolate: true, globalSetup: ['test/helpers/global-setup.ts'] } },
    ],
  },
});
