/**
 * One transaction helper (issue 47): a change opens its transaction with `transaction()` and a step that must
 * be all-or-nothing inside one uses `savepoint()`, both from src/platform/transactions; nothing else calls
 * Drizzle's `.transaction(` (src/db, which builds the clients, aside).
 */
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-tree.js';
const ALLOWED = /^src\/(platform\/transactions|db)\//;

/** `path:line` of every raw transaction in `text` (comments included: prose names the helpers instead). */
function rawTransactions(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (/\.transaction\(/.test(line) ? [`${path}:${i + 1}`] : []));
}

describe('one transaction helper', () => {
  it('opens every transaction through platform/transactions', () => {
    const found = sourceFiles()
      .filter((f) => !ALLOWED.test(f.path))
      .flatMap((f) => rawTransactions(f.path, f.text));
    expect(found).toEqual([]);
  });

  it('reports a raw transaction', () => {
    expect(rawTransactions('src/modules/x.ts', 'const a = 1;\nawait db.transaction(async (tx) => work(tx));')).toEqual(['src/modules/x.ts:2']);
  });
});
