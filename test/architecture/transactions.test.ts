/**
 * One transaction helper (issue 47): a change opens its transaction with `transaction()` and a step that must
 * be all-or-nothing inside one uses `savepoint()`, both from src/platform/transactions; nothing else calls
 * Drizzle's `.transaction(` (src/db, which builds the clients, aside).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const ALLOWED = /^src\/(platform\/transactions|db)\//;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return walk(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** `path:line` of every raw transaction in `text` (comments included: prose names the helpers instead). */
function rawTransactions(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (/\.transaction\(/.test(line) ? [`${path}:${i + 1}`] : []));
}

describe('one transaction helper', () => {
  it('opens every transaction through platform/transactions', () => {
    const found = walk(join(ROOT, 'src'))
      .map((full) => relative(ROOT, full).split('\\').join('/'))
      .filter((path) => !ALLOWED.test(path))
      .flatMap((path) => rawTransactions(path, readFileSync(join(ROOT, path), 'utf8')));
    expect(found).toEqual([]);
  });

  it('reports a raw transaction', () => {
    expect(rawTransactions('src/modules/x.ts', 'const a = 1;\nawait db.transaction(async (tx) => work(tx));')).toEqual(['src/modules/x.ts:2']);
  });
});
