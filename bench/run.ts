/**
 * `npm run bench`: runs every `bench/*.bench.ts` section (each starts its own server on 127.0.0.1 and is
 * bounded in time), prints the results and writes them to bench/RESULTS.md. Set DATABASE_URL to measure
 * on PostgreSQL (the targets are stated for PostgreSQL); BENCH_SECONDS sets each measurement's duration;
 * `npm run bench -- foundation records` runs only the named sections (and leaves RESULTS.md alone).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './lib.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort((a, b) => (a === 'foundation.bench.ts' ? -1 : b === 'foundation.bench.ts' ? 1 : a.localeCompare(b)))
  .filter((f) => only.length === 0 || only.includes(f.replace('.bench.ts', '')));

const sections: BenchSection[] = [];
for (const file of files) {
  console.log(`\n== ${file}`);
  const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<BenchSection> };
  const section = await mod.run();
  console.log(`### ${section.title}\n${section.markdown}`);
  for (const c of section.checks) console.log(`${c.ok ? 'PASS' : 'FAILED'} ${c.name}: ${c.detail}`);
  sections.push(section);
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
if (only.length === 0) {
  writeFileSync(new URL('RESULTS.md', import.meta.url), [...header, ...body].join('\n'));
  console.log('\nwrote bench/RESULTS.md');
} else {
  console.log('\npartial run: bench/RESULTS.md keeps the last full run');
}
process.exit(sections.every((s) => s.checks.every((c) => c.ok)) ? 0 : 1);
