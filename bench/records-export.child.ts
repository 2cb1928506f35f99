/**
 * Child process of records.bench.ts: starts a fresh server on the benchmark's PostgreSQL database,
 * downloads the cartera export (discarding the body) and prints its own RSS before and at peak as one
 * JSON line, so the figure is not polluted by the parent's load generator or by the load runs.
 */
import { measureExport, startServer } from './lib.js';

const url = process.env.DATABASE_URL;
const token = process.env.BENCH_TOKEN;
if (!url || !token) throw new Error('DATABASE_URL and BENCH_TOKEN are required');

const server = await startServer({ DATABASE_URL: url });
try {
  const figures = await measureExport(`${server.baseUrl}/cartera/export.xlsx?kind=lead`, token);
  process.stdout.write(JSON.stringify(figures) + '\n');
} finally {
  await server.close();
}
