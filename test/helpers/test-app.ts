/**
 * The real application over a per-file test database. Use `app.inject` for HTTP; `listen()` for real
 * sockets. Configuration comes from `loadConfig` with test defaults plus `env` overrides.
 */
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import type { ContractViolation } from '../../src/platform/http/contract-check.js';
import { createTestDatabase, type TestDatabase } from './test-db.js';

/**
 * Responses of this file's apps that the OpenAPI document does not describe (`HTTP_CONTRACT_CHECK`, on
 * for every test app): test/helpers/contract-setup.ts fails the file when any were seen.
 */
export const contractViolations: ContractViolation[] = [];

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';
export const TEST_ERP_KEY = '0'.repeat(64);

export interface TestContext {
  app: App;
  database: Database;
  config: Config;
  testDb: TestDatabase;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: ':memory:',
    JWT_SECRET: TEST_JWT_SECRET,
    ERP_SESSION_ENCRYPTION_KEY: TEST_ERP_KEY,
    HTTP_CONTRACT_CHECK: 'true',
    ...env,
  });
}

/** Builds the app on a fresh database (or on `testDb` when given, to share one across apps). */
export async function createTestApp(
  options: { env?: Record<string, string>; testDb?: TestDatabase; startQueue?: boolean; now?: () => Date; logStream?: { write(line: string): void } } = {},
): Promise<TestContext> {
  const testDb = options.testDb ?? (await createTestDatabase());
  const config = testConfig(options.env);
  const app = await buildApp({
    config,
    database: testDb.database,
    secrets: { jwtSecret: TEST_JWT_SECRET, erpSessionEncryptionKey: TEST_ERP_KEY, generated: [] },
    startQueue: options.startQueue ?? false,
    ...(options.now ? { now: options.now } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
    onContractViolation: (violation) => contractViolations.push(violation),
  });
  await app.ready();
  return {
    app,
    database: testDb.database,
    config,
    testDb,
    async close() {
      await app.close();
      if (!options.testDb) await testDb.close();
    },
  };
}
