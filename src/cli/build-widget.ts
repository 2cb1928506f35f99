/**
 * Builds the website chat widget (`widget/widget.ts`, issue 32) into `dist/widget.js`, which the compiled
 * service serves at `/widget.js`, and reports its size: `tsx src/cli/build-widget.ts` (part of `npm run build`).
 * Fails past the budget of issue 48, 25 KiB gzipped: every site that embeds the widget loads it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { buildWidget } from '../modules/interactions/index.js';

const code = await buildWidget();
await mkdir('dist', { recursive: true });
await writeFile('dist/widget.js', code);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const gzipped = gzipSync(code).length;
console.log(`dist/widget.js: ${kib(Buffer.byteLength(code))} (${kib(gzipped)} gzipped)`);
const BUDGET_BYTES = 25 * 1024;
if (gzipped > BUDGET_BYTES) {
  console.error(`dist/widget.js is over its budget of ${kib(BUDGET_BYTES)} gzipped`);
  process.exitCode = 1;
}
