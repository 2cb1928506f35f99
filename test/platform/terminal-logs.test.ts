/**
 * `npm start` at a terminal logs readable lines through pino-pretty (a pseudo-terminal from util-linux
 * `script` stands in for a person's terminal); in production it keeps JSON lines even at a terminal.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../helpers/test-db.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Starts the service under a pseudo-terminal until it listens; returns everything it printed. */
async function startAtTerminal(env: Record<string, string>): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-tty-'));
  dirs.push(dataDir);
  const child = spawn('script', ['-qfec', `${process.execPath} --import tsx src/main.ts`, '/dev/null'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (out.includes('API docs at')) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`exited ${code}: ${out}`));
      });
    });
  } finally {
    child.kill('SIGTERM');
  }
  return out;
}

describe.runIf(hasScript)('logs at a terminal', () => {
  // On the embedded defaults whatever the suite's database: the embedded run covers it.
  it.skipIf(process.env.TEST_DATABASE_URL)(
    'are readable lines, not JSON, outside production',
    async () => {
      const out = await startAtTerminal({});
      expect(out).toMatch(/INFO.*Server listening at http:\/\/127\.0\.0\.1:\d+/);
      expect(out).not.toMatch(/^\{"level"/m);
    },
    60_000,
  );

  // Production runs on PostgreSQL only.
  it.runIf(process.env.TEST_DATABASE_URL)(
    'stay JSON lines in production',
    async () => {
      const testDb = await createTestDatabase();
      try {
        const out = await startAtTerminal({
          NODE_ENV: 'production',
          JWT_SECRET: 'production-secret-production-secret-0123456789',
          ERP_SESSION_ENCRYPTION_KEY: '1'.repeat(64),
          COMMUNICATIONS_WEBHOOK_APP_SECRET: 'production-app-secret',
          DATABASE_URL: testDb.url!,
        });
        expect(out).toMatch(/^\{"level":30,.*"msg":"Server listening at /m);
      } finally {
        await testDb.close();
      }
    },
    60_000,
  );
});
