/**
 * The shape of the interactions pipeline (issue 47, docs/architecture.md "Interactions in rooms"), on the
 * syntax tree of every file of src/modules/interactions:
 * - the pipeline names no channel: a string literal that is a channel type code, a platform or a platform
 *   payload's `object` appears only under `channels/` (the adapters) and in the catalogue
 *   (`model/interactions.enums.ts`);
 * - no folder holds more than 1,200 lines of its own files (its sub-folders count for themselves).
 * The rules are also run on synthetic files, so that the check itself is shown to fail.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-tree.js';
import { CHANNEL_TYPE_CODES, PLATFORMS } from '../../src/modules/interactions/model/interactions.enums.js';

const MODULE = 'src/modules/interactions/';
const ADAPTERS = `${MODULE}channels/`;
const CATALOGUE = `${MODULE}model/interactions.enums.ts`;
/** Meta's webhook `object`s: the channels recognize their payloads by them. */
const PAYLOAD_OBJECTS = ['whatsapp_business_account', 'page', 'instagram'];
const CHANNEL_NAMES = new Set<string>([...CHANNEL_TYPE_CODES, ...PLATFORMS, ...PAYLOAD_OBJECTS]);
const MAX_FOLDER_LINES = 1200;

/** `path: 'literal'` for each channel name written as a string literal outside the adapters and the catalogue. */
function channelLiterals(path: string, text: string): string[] {
  if (!path.startsWith(MODULE) || path.startsWith(ADAPTERS) || path === CATALOGUE) return [];
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && CHANNEL_NAMES.has(node.text)) {
      // An import path or a module augmentation names a file, not a channel.
      if (!ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent) && !ts.isModuleDeclaration(node.parent))
        found.push(`${path}: '${node.text}'`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true));
  return found;
}

/** `folder: lines` for each folder of the module whose own files hold more than the limit. */
function oversizedFolders(files: { path: string; text: string }[]): string[] {
  const lines = new Map<string, number>();
  for (const f of files.filter((file) => file.path.startsWith(MODULE))) {
    const folder = f.path.slice(0, f.path.lastIndexOf('/'));
    lines.set(folder, (lines.get(folder) ?? 0) + f.text.split('\n').length);
  }
  return [...lines].filter(([, n]) => n > MAX_FOLDER_LINES).map(([folder, n]) => `${folder}: ${n} lines`);
}

describe('the interactions pipeline', () => {
  const files = sourceFiles();

  it('names no channel outside the adapters and the catalogue', () => {
    expect(files.some((f) => f.path.startsWith(ADAPTERS))).toBe(true);
    expect(files.flatMap((f) => channelLiterals(f.path, f.text))).toEqual([]);
  });

  it('keeps every folder under 1,200 lines', () => {
    expect(oversizedFolders(files)).toEqual([]);
  });
});

describe('the interactions pipeline rules on synthetic files', () => {
  it('reports a channel code, a platform or a payload object compared in the pipeline', () => {
    expect(channelLiterals(`${MODULE}outbound/x.ts`, "if (code === 'web') send();")).toEqual([`${MODULE}outbound/x.ts: 'web'`]);
    expect(channelLiterals(`${MODULE}intake/x.ts`, 'const p = `chatapp_api`;')).toHaveLength(1);
    expect(channelLiterals(`${MODULE}inbound/x.ts`, "const o = { object: 'whatsapp_business_account' };")).toHaveLength(1);
  });

  it('lets the adapters, the catalogue, import paths and other words pass', () => {
    expect(channelLiterals(`${ADAPTERS}web/web.channel.ts`, "const p = 'web';")).toEqual([]);
    expect(channelLiterals(CATALOGUE, "const p = 'web';")).toEqual([]);
    expect(channelLiterals(`${MODULE}outbound/x.ts`, "import x from 'web'; const t = 'website';")).toEqual([]);
    expect(channelLiterals('src/modules/records/x.ts', "const t = 'whatsapp';")).toEqual([]);
  });

  it('reports a folder over the limit, counting each folder alone', () => {
    const big = { path: `${MODULE}big/a.ts`, text: 'x\n'.repeat(1200) };
    const nested = { path: `${MODULE}big/inner/b.ts`, text: 'x\n'.repeat(1000) };
    expect(oversizedFolders([big, nested])).toEqual([`${MODULE}big: 1201 lines`]);
  });
});
