/**
 * `npm run bench`: runs every `bench/*.bench.ts` section (each starts its own server on 127.0.0.1 and is
 * bounded in time), prints the results and writes them to bench/RESULTS.md. Set DATABASE_URL to measure
 * on PostgreSQL (the targets are stated for PostgreSQL); BENCH_SECONDS sets each measurement's duration;
 * `npm run bench -- foundation records` runs only the named sections (and leaves RESULTS.md alone).
 *
 * `npm run bench -- --smoke [sections]` runs them at a tiny scale (a few dozen requests per route, a few
 * hundred rows) and fails when a section throws, measures nothing, meets a non-2xx it did not expect or
 * fails an integrity check (every event arrived, ...); its targets are printed, not judged, and RESULTS.md
 * is left alone. `.ci/run` runs it, so a benchmark cannot rot unnoticed.
 *
 * `--lanes=N` (smoke only) runs the sections in N child runs side by side, each with its own Redis key prefix:
 * a smoke section mostly waits (services starting, loads at a fixed low rate), so two lanes on two cores take
 * about half the time. Each lane's output is printed whole when it ends; any lane failing fails the run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './lib.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const smoke = process.argv.includes('--smoke');
const lanesArg = process.argv.find((a) => a.startsWith('--lanes='));
const only = process.argv.slice(2).filter((a) => a !== '--smoke' && a !== lanesArg);
/** The smoke run's scale: each section's own knobs, unless set by the caller. */
const SMOKE_SCALE: Record<string, string> = {
  BENCH_SMOKE: '1',
  BENCH_SECONDS: '1',
  BENCH_ROUNDS: '1',
  BENCH_CONVERSATIONS: '300',
  BENCH_INTERACTIONS_SECONDS: '2',
  BENCH_NO_PROBES: '1',
  BENCH_OUTBOUND_RATE: '50',
  BENCH_OUTBOUND_SECONDS: '2',
  BENCH_OUTBOUND_WARMUP_SECONDS: '1',
  BENCH_RECORDS_LEADS: '300',
  BENCH_REPORT_CONVERSATIONS: '300',
  BENCH_SCALE_OUT_SECONDS: '2',
  BENCH_SLA_ROUNDS: '1',
  BENCH_SLA_SECONDS: '1',
  BENCH_SLA_CONVERSATIONS: '300',
  BENCH_SOCKETS: '20',
  BENCH_VIS_CONVERSATIONS: '300',
  BENCH_WEB_VISITORS: '20',
  BENCH_WEB_ROUNDS: '5',
  BENCH_MEDIA_FILES: '2',
  BENCH_IMPORT_LEADS: '300',
  BENCH_WORKFLOWS: '20',
};
if (smoke) for (const [k, v] of Object.entries(SMOKE_SCALE)) process.env[k] ??= v;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort((a, b) => (a === 'foundation.bench.ts' ? -1 : b === 'foundation.bench.ts' ? 1 : a.localeCompare(b)))
  .filter((f) => only.length === 0 || only.includes(f.replace('.bench.ts', '')));

if (smoke && lanesArg) process.exit(await runInLanes(Number(lanesArg.slice('--lanes='.length)), files));

// Imported after the smoke scale is set: lib.ts (and every section) reads BENCH_SMOKE when it loads.
const { takeMeasurementProblems } = await import('./lib.js');
const sections: BenchSection[] = [];
/** Per section, what makes the smoke run fail: an error, nothing measured, a broken integrity check. */
const broken: string[] = [];
for (const file of files) {
  console.log(`\n== ${file}`);
  const started = performance.now();
  let section: BenchSection;
  try {
    const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<BenchSection> };
    section = await mod.run();
  } catch (err) {
    console.error(err);
    broken.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    continue;
  }
  console.log(`### ${section.title}\n${section.markdown}`);
  for (const c of section.checks) console.log(`${c.ok ? 'PASS' : smoke && !c.integrity ? 'not judged' : 'FAILED'} ${c.name}: ${c.detail}`);
  for (const problem of takeMeasurementProblems()) broken.push(`${file}: ${problem}`);
  for (const c of section.checks) if (c.integrity && !c.ok) broken.push(`${file}: ${c.name} (${c.detail})`);
  if (section.markdown.trim() === '' || section.markdown.startsWith('Not measured')) broken.push(`${file}: measured nothing`);
  sections.push(section);
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
if (smoke) {
  console.log(
    broken.length === 0 ? `\nsmoke run: ${sections.length} sections ran and measured` : `\nsmoke run FAILED:\n${broken.map((b) => `- ${b}`).join('\n')}`,
  );
  process.exit(broken.length === 0 ? 0 : 1);
}

const header = [
  '# Benchmark results',
  '',
  `Last run: ${new Date().toISOString()} on ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version},`,
  `database: ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}. Produced by \`npm run bench\`; compare ratios within one run, not`,
  'absolute figures across runs (the machines are shared and noisy).',
  '',
];
const body = sections.flatMap((s) => [
  `## ${s.title}`,
  '',
  s.markdown,
  '',
  ...(s.checks.length > 0 ? ['Targets:', ...s.checks.map((c) => `- ${c.ok ? 'met' : '**not met**'}: ${c.name} (${c.detail})`), ''] : []),
]);
/** What follows this line in RESULTS.md was measured by hand (a change's before and after): a full run keeps it. */
const KEPT_MARK = '<!-- Kept by `npm run bench`';
if (only.length === 0) {
  const resultsUrl = new URL('RESULTS.md', import.meta.url);
  const previous = existsSync(resultsUrl) ? readFileSync(resultsUrl, 'utf8') : '';
  const kept = previous.includes(KEPT_MARK) ? ['', previous.slice(previous.indexOf(KEPT_MARK)).trimEnd()] : [];
  writeFileSync(resultsUrl, [...header, ...body, ...kept].join('\n') + '\n');
  console.log('\nwrote bench/RESULTS.md');
} else {
  console.log('\npartial run: bench/RESULTS.md keeps the last full run');
}
for (const b of broken) console.log(`FAILED ${b}`);
process.exit(broken.length === 0 && sections.every((s) => s.checks.every((c) => c.ok)) ? 0 : 1);

/**
 * A smoke section's seconds on CI (quiet machine, PostgreSQL), to balance the lanes: longest first, each to the lane
 * with the least so far. A section missing here counts as 20 s.
 */
function smokeWeight(file: string): number {
  const seconds: Record<string, number> = {
    'scale-out.bench.ts': 37,
    'outbound.bench.ts': 30,
    'records.bench.ts': 24,
    'conversations.bench.ts': 23,
    'interactions.bench.ts': 15,
    'sla.bench.ts': 14,
    'foundation.bench.ts': 12,
    'media.bench.ts': 11,
    'sockets.bench.ts': 9,
    'web-channel.bench.ts': 9,
    'reports.bench.ts': 8,
    'visibility.bench.ts': 6,
    'erp.bench.ts': 5,
    'queue.bench.ts': 3,
    'workflows.bench.ts': 2,
    'imports.bench.ts': 25,
    'search.bench.ts': 15,
  };
  return seconds[file] ?? 20;
}

/** Runs `sectionFiles` in `lanes` child smoke runs at once; resolves to the exit code (0 when every lane passed). */
async function runInLanes(lanes: number, sectionFiles: string[]): Promise<number> {
  const { productionBuild } = await import('./lib.js');
  // Built once here: lanes building dist/ at the same time would overwrite each other's files.
  await productionBuild();
  const assigned: { files: string[]; seconds: number }[] = Array.from({ length: Math.max(1, lanes) }, () => ({ files: [], seconds: 0 }));
  for (const file of [...sectionFiles].sort((a, b) => smokeWeight(b) - smokeWeight(a))) {
    const lane = assigned.reduce((least, l) => (l.seconds < least.seconds ? l : least));
    lane.files.push(file.replace('.bench.ts', ''));
    lane.seconds += smokeWeight(file);
  }
  const codes = await Promise.all(
    assigned.map(
      (lane, i) =>
        new Promise<number>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--smoke', ...lane.files], {
            env: { ...process.env, BENCH_BUILT: '1', REDIS_KEY_PREFIX: `bench-lane-${i}` },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          const output: Buffer[] = [];
          child.stdout.on('data', (d: Buffer) => output.push(d));
          child.stderr.on('data', (d: Buffer) => output.push(d));
          child.once('exit', (code) => {
            console.log(`\n==== lane ${i + 1} of ${assigned.length}: ${lane.files.join(', ')} (exit ${code})`);
            process.stdout.write(Buffer.concat(output));
            resolve(code ?? 1);
          });
        }),
    ),
  );
  const failed = codes.filter((c) => c !== 0).length;
  console.log(failed === 0 ? `\nsmoke run: ${assigned.length} lanes passed` : `\nsmoke run FAILED: ${failed} of ${assigned.length} lanes`);
  return failed === 0 ? 0 : 1;
}
