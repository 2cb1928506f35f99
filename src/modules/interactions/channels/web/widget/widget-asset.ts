/**
 * The widget script (`/widget.js`, issue 32) and its demo page (`/widget/demo`). The script is built with
 * esbuild from `widget/widget.ts` (plain TypeScript, socket.io-client bundled): `npm run build` writes
 * `dist/widget.js` (and reports its size), which the compiled service serves; started from the sources
 * (`npm start`, tests) the service builds it once, in memory, at the first request.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** `dist/widget.js` next to the compiled modules. */
const PREBUILT = resolve(here, '../../../../../widget.js');
/** The widget's source entry, from the repository root. */
const WIDGET_ENTRY = resolve(here, '../../../../../../widget/widget.ts');

/** Bundles the widget (minified IIFE, ES2019, no eval, no inline styles the host's CSP would refuse). */
export async function buildWidget(entry: string = WIDGET_ENTRY): Promise<string> {
  // Only when started from the sources: esbuild is a development dependency.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2019',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

export interface WidgetAsset {
  code: string;
  etag: string;
}

let asset: Promise<WidgetAsset> | undefined;

/** The widget script: `dist/widget.js` when present, else built from `widget/` once per process. */
export function widgetAsset(): Promise<WidgetAsset> {
  asset ??= (existsSync(PREBUILT) ? readFile(PREBUILT, 'utf8') : buildWidget()).then((code) => ({
    code,
    etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`,
  }));
  // A failed build is tried again at the next request.
  asset.catch(() => (asset = undefined));
  return asset;
}

/**
 * The demo page: this service's own page with the widget of website `websiteToken` (no inline script or style: the CSP
 * admits `'self'` only). It fits a phone: a viewport, and the snippet breaks where it may (`<wbr>`).
 */
export function demoPage(websiteToken: string): string {
  const token = websiteToken.replace(/[^A-Za-z0-9_-]/g, '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Website chat demo</title>
</head>
<body>
<main>
<h1>Demo Company</h1>
<p>This page embeds the website chat with one tag:</p>
<p><code>&lt;script src="/widget.js"<wbr> data-website-token="${token.replace(/(.{12})/g, '$1<wbr>')}"<wbr> async&gt;&lt;/script&gt;</code></p>
<p>Open the chat at the bottom of the page, write, and answer from the inbox (<code>/interactions/conversations</code>).</p>
</main>
<script src="/widget.js" data-website-token="${token}" async></script>
</body>
</html>
`;
}
