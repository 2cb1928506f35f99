/**
 * The real start command on a fresh, empty embedded data directory: demo data on first start, generated
 * secrets persisted, SIGTERM shutting down cleanly, and the same data and tokens valid after a restart.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/interactions.js';

const dataDir = mkdtempSync(join(tmpdir(), 'crm-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
}

async function start(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
  return { child, baseUrl, output: () => out };
}

async function stop(r: Running): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  return exited;
}

// The start on embedded defaults ignores the suite's database, so the run on PostgreSQL (TEST_DATABASE_URL)
// would repeat this one as it is: it runs in the embedded run only.
describe.skipIf(process.env.TEST_DATABASE_URL)('npm start on embedded defaults', () => {
  it('seeds the demo, serves /docs, stops cleanly on SIGTERM and keeps data and tokens across a restart', async () => {
    const first = await start();
    expect(first.output()).toContain('login admin@example.com / admin123');
    expect(first.output()).toContain('JWT_SECRET is not set');
    // The docs' address with the port the system chose for PORT=0.
    await waitFor(() => first.output().includes('API docs at'));
    expect(first.output()).toContain(`API docs at ${first.baseUrl}/docs`);
    // Not a terminal: one JSON object per line, for log collectors.
    expect(first.output()).toMatch(/^\{"level":30,.*"msg":"Server listening at /m);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect((await fetch(`${first.baseUrl}/docs/`)).status).toBe(200);
    const login = await fetch(`${first.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'admin123', entity_id: 1 }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const me = (await (await fetch(`${first.baseUrl}/api/permissions/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      super_admin: boolean;
    };
    expect(me.super_admin).toBe(true);
    expect(await stop(first)).toBe(0);
    expect(first.output()).toContain('shutting down');

    const second = await start();
    expect(second.output()).not.toContain('Demo data ready');
    const again = await fetch(`${second.baseUrl}/api/permissions/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(again.status).toBe(200);
    expect(await stop(second)).toBe(0);
  }, 90_000);
});
