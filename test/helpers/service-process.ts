/**
 * The real service (the production build in CI, else `src/main.ts`) as a child process on a PostgreSQL
 * database, for tests whose claim is about processes: a crash (SIGKILL) and a restart on the same database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ERP_KEY, TEST_JWT_SECRET } from './test-app.js';

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  /** `application_name` of every database connection of this process (pg reads PGAPPNAME). */
  applicationName: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit signal or code once the process has exited (at once when it already has). */
  exited: Promise<NodeJS.Signals | number | null>;
  /** SIGKILLs the process if it still runs and removes its data directory; never throws. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The command line of the service: the production build (`dist/main.js`, from `npm run build`) when
 * `TEST_SERVICE_BUILD=dist`, as `.ci/run` sets it; otherwise the sources through tsx.
 */
function serviceArgs(): string[] {
  if (process.env.TEST_SERVICE_BUILD !== 'dist') return ['--import', 'tsx', 'src/main.ts'];
  if (!existsSync('dist/main.js')) throw new Error('TEST_SERVICE_BUILD=dist needs the production build: run npm run build first');
  return ['--enable-source-maps', 'dist/main.js'];
}

/**
 * Starts the service (see `serviceArgs`) on `databaseUrl` (plus `env`) and resolves once `/readyz` answers 200
 * (`readyTimeoutMs` at most, default 30 s).
 */
export async function startService(databaseUrl: string, name: string, env: Record<string, string> = {}, readyTimeoutMs = 30_000): Promise<ServiceProcess> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `crm-${name}-`));
  const applicationName = `crm-test-${name}-${port}`;
  const child = spawn(process.execPath, serviceArgs(), {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      JWT_SECRET: TEST_JWT_SECRET,
      ERP_SESSION_ENCRYPTION_KEY: TEST_ERP_KEY,
      PGAPPNAME: applicationName,
      // The services a test file starts share their realtime stream, and no other file's (files run at once).
      REDIS_KEY_PREFIX: `crm-test-${process.pid}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode ?? child.exitCode);
    else child.once('exit', (code, signal) => resolve(signal ?? code));
  });
  const service: ServiceProcess = {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    applicationName,
    output: () => out,
    exited,
    async dispose() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + readyTimeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`the service exited before it was ready:\n${out}`);
    const ready = await fetch(`${service.baseUrl}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return service;
    if (Date.now() > deadline) {
      await service.dispose();
      throw new Error(`the service was not ready within ${readyTimeoutMs / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
