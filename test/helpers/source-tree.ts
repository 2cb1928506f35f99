/** The repository's source files, for the architecture tests that read the tree as text. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '../..');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return walk(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** Every `.ts` file under `src/`, its path relative to the repository root with forward slashes, and its text. */
export function sourceFiles(): { path: string; text: string }[] {
  return walk(join(REPOSITORY_ROOT, 'src')).map((full) => ({
    path: relative(REPOSITORY_ROOT, full).split('\\').join('/'),
    text: readFileSync(full, 'utf8'),
  }));
}
