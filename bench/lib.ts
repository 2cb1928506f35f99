/**
 * Shared benchmark tooling: start the real service on 127.0.0.1 (embedded PGlite, or PostgreSQL when
 * DATABASE_URL is set), drive it with autocannon for a bounded time, and report req/s and latency.
 * Figures are compared as ratios within one run: the machines are shared and noisy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { Redis } from 'ioredis';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPreparedDatabase } from '../src/bootstrap/prepare-database.js';
import type { Database } from '../src/db/client.js';
import { claimsFor } from '../src/modules/auth/auth.service.js';
import { createIdentityService } from '../src/modules/identity/index.js';
import { createAuthenticator } from '../src/platform/auth/authenticator.js';
import { createTokenService } from '../src/platform/auth/jwt.js';

export interface BenchServer {
  app: App;
  database: Database;
  baseUrl: string;
  /** `pglite` or `postgres`. */
  kind: Database['kind'];
  close(): Promise<void>;
}

/**
 * A fresh PostgreSQL database on the server of `DATABASE_URL` for one benchmark (`url` undefined on the
 * embedded database), so runs never depend on what an earlier run left; `drop()` removes it.
 */
export async function throwawayDatabase(prefix = 'bench'): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => undefined };
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      if (process.env.BENCH_KEEP_DB) return console.log(`kept database ${name}`);
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** The secrets every benchmark service runs with, so a benchmark can sign tokens the service accepts. */
export const BENCH_SECRETS = { jwtSecret: 'bench-secret-bench-secret-bench-secret-01', erpSessionEncryptionKey: '1'.repeat(64) };

/**
 * A session token of user `userId` in entity `entityId`, signed with `BENCH_SECRETS` by this process from
 * `database` (for a service started in another process, or before it starts). Throws when the user is not
 * an active member of the entity.
 */
export async function signBenchToken(database: Database, userId: number, entityId: number): Promise<string> {
  const tokens = createTokenService(BENCH_SECRETS.jwtSecret);
  const principal = await createAuthenticator({ principals: createIdentityService({ database }).principals, tokens }).principalFor(userId, entityId, 'web');
  if (!principal) throw new Error(`bench user ${userId} has no principal in entity ${entityId}`);
  return (await tokens.sign(claimsFor(principal))).token;
}

/**
 * Starts the service on an ephemeral port; `env` overrides configuration. With DATABASE_URL set and no
 * explicit `env.DATABASE_URL`, the server gets its own throw-away database, dropped by `close()`.
 */
export async function startServer(
  env: Record<string, string | undefined> = {},
  /** Registers benchmark-only routes before the server listens. */
  extraRoutes?: (app: App, database: Database) => void,
): Promise<BenchServer> {
  const own = 'DATABASE_URL' in env ? undefined : await throwawayDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATA_DIR: ':memory:',
    PORT: '0',
    LOGIN_RATE_LIMIT_MAX: '1000000',
    // As for `startProductionService`: the load generator does not reconnect after `Connection: close`.
    HTTP_MAX_REQUESTS_PER_SOCKET: '0',
    ...env,
    DATABASE_URL: 'DATABASE_URL' in env ? env.DATABASE_URL : own?.url,
  });
  const database = await openPreparedDatabase(config);
  // As the service's main does: Redis (Socket.IO adapter, login throttling) when REDIS_URL is configured.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) : undefined;
  const app = await buildApp({
    config,
    database,
    secrets: { ...BENCH_SECRETS, generated: [] },
    redis,
  });
  extraRoutes?.(app, database);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    database,
    baseUrl: `http://127.0.0.1:${port}`,
    kind: database.kind,
    async close() {
      await app.close();
      redis?.disconnect();
      await database.close();
      await own?.drop();
    },
  };
}

/** A service started in its own process by `startServiceProcess`; `ready` is the child's JSON line. */
export interface ServiceProcess<T> {
  ready: T;
  pid: number;
  /** Sends SIGTERM and waits for the child to exit (it closes its server and writes any CPU profile first). */
  stop(): Promise<void>;
}

/**
 * Starts `childScript` (a bench/*.child.ts) in its own Node process, as the service runs in production,
 * so the load generator of this process does not share its event loop. The child must print one JSON
 * line when ready (`T`, e.g. `{ baseUrl, token }`) and stop on SIGTERM. `env` is added to this
 * process's environment. `BENCH_CPU_PROF=<dir>` writes a V8 CPU profile of the child there.
 */
export async function startServiceProcess<T>(childScript: URL, env: Record<string, string | undefined> = {}): Promise<ServiceProcess<T>> {
  const { child, stop } = spawnNode(['--import', 'tsx', fileURLToPath(childScript)], { env: { ...process.env, ...env }, stdout: 'pipe' });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${fileURLToPath(childScript)} exited with ${code} before it was ready`)));
  });
  return { ready: JSON.parse(first) as T, pid: child.pid!, stop };
}

/**
 * Spawns Node.js with `args` (plus `--cpu-prof` into `BENCH_CPU_PROF=<dir>` when set); `stop()` sends
 * SIGTERM and waits for the exit, so a CPU profile is written before it resolves.
 */
function spawnNode(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; stdout: 'pipe' | 'inherit' },
): { child: ChildProcess; stop: () => Promise<void> } {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', options.stdout, 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { child, stop };
}

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
let build: Promise<void> | undefined;

/**
 * Runs `npm run build` (the production build in dist/) once per benchmark run; rejects when it fails.
 * `BENCH_BUILT=1` says dist/ is already the build of this tree (`.ci/run` built it a moment before).
 */
export function productionBuild(): Promise<void> {
  if (process.env.BENCH_BUILT === '1') return Promise.resolve();
  build ??= new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'build'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm run build exited with ${code}`))));
  });
  return build;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The service started by `startProductionService`. */
export interface ProductionService {
  baseUrl: string;
  /** The Node.js process serving (for `rssOfProcess`). */
  pid: number;
  /** Sends SIGTERM and waits for the process to exit (it writes any CPU profile first). */
  stop(): Promise<void>;
}

/**
 * Starts the service as it runs in production: the build in dist/ (`productionBuild()` first), in its own
 * Node.js process, configured by environment only (`BENCH_SECRETS`, `LOG_LEVEL=warn`, no limit of requests
 * per connection, a free 127.0.0.1 port, plus `env`: `DATABASE_URL` selects PostgreSQL and
 * `NODE_ENV=production`, otherwise `DATA_DIR` holds the embedded database). Resolves once `/readyz` answers 200. `BENCH_CPU_PROF=<dir>` writes a V8
 * CPU profile of the process there.
 */
export async function startProductionService(
  env: { DATABASE_URL?: string | undefined; DATA_DIR?: string },
  /**
   * A bench/*.child.ts to run instead of dist/main.js (through tsx): one that starts the same build from
   * dist/ the same way and adds benchmark-only routes (records-server.child.ts).
   */
  childScript?: URL,
): Promise<ProductionService> {
  await productionBuild();
  const port = await freePort();
  const entry = childScript ? ['--import', 'tsx', fileURLToPath(childScript)] : ['dist/main.js'];
  const { child, stop } = spawnNode(['--enable-source-maps', ...entry], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: env.DATABASE_URL ? 'production' : 'development',
      ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : { DATA_DIR: env.DATA_DIR }),
      JWT_SECRET: BENCH_SECRETS.jwtSecret,
      ERP_SESSION_ENCRYPTION_KEY: BENCH_SECRETS.erpSessionEncryptionKey,
      // Required in production; these benchmarks post no webhook.
      COMMUNICATIONS_WEBHOOK_APP_SECRET: 'bench-webhook-app-secret',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // The load generator keeps a connection past its answer's `Connection: close`, so the production
      // limit of requests per connection would turn the rest of a fast route's run into 503s.
      HTTP_MAX_REQUESTS_PER_SOCKET: '0',
    },
    stdout: 'inherit',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`dist/main.js exited with ${child.exitCode} before it was ready`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (attempt > 600) throw new Error('dist/main.js was not ready after 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { baseUrl, pid: child.pid!, stop };
}

/** Resident set size of process `pid` in bytes, from /proc (Linux). */
export function rssOfProcess(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

export interface Measurement {
  title: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface MeasureOptions {
  title: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  /** Seconds; bounded so `npm run bench` always ends. */
  durationSeconds?: number;
  /**
   * Seconds of the same load run first and discarded (default 0): first calls compile code paths and
   * prepare statements on each pooled connection, which a long-running server has long done.
   */
  warmupSeconds?: number;
  /** The load is meant to meet refusals (a limit's answers): non-2xx answers are not a problem of the benchmark. */
  expectsRefusals?: boolean;
}

/** Runs autocannon against one URL (127.0.0.1 only) and summarizes it. */
export async function measure(opts: MeasureOptions): Promise<Measurement> {
  if (!/^http:\/\/127\.0\.0\.1[:/]/.test(opts.url)) throw new Error(`benchmarks target 127.0.0.1 only: ${opts.url}`);
  const load = {
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    connections: opts.connections ?? 50,
  };
  if (opts.warmupSeconds && !SMOKE) await autocannon({ ...load, duration: Math.min(opts.warmupSeconds, 10) });
  const seconds = Math.min(opts.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8), 60);
  // The smoke run counts requests, not seconds: a fixed number of answers proves the route works however busy the
  // machine is (a one-second window on a loaded machine can end before the first answer), and ends sooner.
  const result = await autocannon(SMOKE ? { ...load, amount: Math.max(2 * load.connections, 40) } : { ...load, duration: seconds });
  if (result['2xx'] === 0) measurementProblems.push(`${opts.title}: no request answered 2xx`);
  else if (!opts.expectsRefusals && result.non2xx + result.errors + result.timeouts > 0)
    measurementProblems.push(`${opts.title}: ${result.non2xx} non-2xx, ${result.errors + result.timeouts} errors`);
  return {
    title: opts.title,
    // Successful answers only: an error answered fast (a 503 once a connection passed the server's
    // keep-alive request limit, which autocannon does not reconnect after) must not raise the rate.
    requestsPerSecond: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * Measures each of `scenarios` `rounds` times in alternating order (AB, BA, AB, …) and returns one median
 * measurement per scenario, in the given order (req/s and latencies medians, errors summed): the machines
 * are shared and load comes in bursts, so one pass per scenario can land in a burst that another missed.
 */
export async function alternatingRounds(rounds: number, scenarios: (() => Promise<Measurement>)[]): Promise<Measurement[]> {
  const runs: Measurement[][] = scenarios.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = scenarios.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) runs[i]!.push(await scenarios[i]!());
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return runs.map((r) => ({
    title: r[0]!.title,
    requestsPerSecond: median(r.map((m) => m.requestsPerSecond)),
    p50Ms: median(r.map((m) => m.p50Ms)),
    p99Ms: median(r.map((m) => m.p99Ms)),
    non2xx: r.reduce((sum, m) => sum + m.non2xx, 0),
    errors: r.reduce((sum, m) => sum + m.errors, 0),
  }));
}

/** The `p`th percentile (0–100) of `values` by nearest rank; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * An open load: calls `fire(i)` for i = 0..count-1 at `rate` per second on schedule, whatever the earlier
 * calls' answers (a slow answer does not slow the load, as with real clients), and resolves once every
 * call settled, with the achieved rate (calls per second over the time to settle them all).
 */
export async function openLoad(rate: number, count: number, fire: (i: number) => Promise<void>): Promise<{ achievedRate: number }> {
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(fire(i));
  }
  await Promise.all(inflight);
  return { achievedRate: count / ((performance.now() - started) / 1000) };
}

/** A markdown table of measurements with each req/s as a ratio of `baseline` (a title in the list). */
export function table(measurements: Measurement[], baseline?: string): string {
  const base = measurements.find((m) => m.title === baseline)?.requestsPerSecond;
  const rows = measurements.map(
    (m) =>
      `| ${m.title} | ${m.requestsPerSecond.toFixed(0)} | ${m.p50Ms.toFixed(1)} | ${m.p99Ms.toFixed(1)} | ${base ? `${((m.requestsPerSecond / base) * 100).toFixed(0)}%` : ''} | ${m.non2xx + m.errors} |`,
  );
  return ['| scenario | req/s | p50 ms | p99 ms | vs baseline | errors |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** One section of bench/RESULTS.md, produced by a `bench/*.bench.ts` file. */
export interface BenchSection {
  title: string;
  markdown: string;
  /**
   * Targets checked in this run; a false one is printed as FAILED but does not stop other sections. An
   * `integrity` check is about correctness, not speed (every event arrived, every request answered as
   * expected): the smoke run (`--smoke`) fails on those only.
   */
  checks: { name: string; ok: boolean; detail: string; integrity?: boolean }[];
}

/**
 * `npm run bench -- --smoke`: every section at a tiny scale (bench/run.ts sets the scale), to prove it still
 * runs and measures something; targets are printed, not judged.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

const measurementProblems: string[] = [];

/** What `measure` found wrong since the last call (no request answered 2xx, an unexpected non-2xx or error); empties the list. */
export function takeMeasurementProblems(): string[] {
  return measurementProblems.splice(0);
}

/**
 * Downloads the export at `url`, discarding the body, while sampling the RSS of the serving process `pid`
 * every 20 ms; returns bytes, seconds and that RSS before and at peak in MB.
 */
export async function measureExport(url: string, token: string, pid: number): Promise<{ bytes: number; seconds: number; baselineMb: number; peakMb: number }> {
  const baseline = rssOfProcess(pid);
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOfProcess(pid));
  }, 20);
  const started = performance.now();
  let bytes = 0;
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok || !res.body) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, rssOfProcess(pid));
  const mb = (n: number) => n / 1024 / 1024;
  return { bytes, seconds: (performance.now() - started) / 1000, baselineMb: mb(baseline), peakMb: mb(peak) };
}
