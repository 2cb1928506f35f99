/**
 * The module boundaries of docs/architecture.md, checked on the source tree:
 * - src/db, src/platform and src/integrations import no module (nor anything above the modules);
 * - a module imports another module only through its `index.ts` (its public surface) or its
 *   `*.table.ts` files (foreign keys);
 * - code above the modules (app, main, bootstrap, cli) imports a module only through its `index.ts`;
 * - no module's code queries another module's table, in SQL text or through Drizzle; views an owner
 *   publishes (`pgView`) may be read.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

interface SourceFile {
  /** Path relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return walk(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

function loadSources(): SourceFile[] {
  return walk(SRC).map((full) => ({ path: relative(ROOT, full).split('\\').join('/'), text: readFileSync(full, 'utf8') }));
}

/** Module folder of a path under src/modules, or undefined. */
const moduleOf = (path: string) => /^src\/modules\/([^/]+)\//.exec(path)?.[1];

/** Every relative import or re-export of `file`, resolved to a repository path (`.js` read as `.ts`). */
function importsOf(file: SourceFile): string[] {
  const specifiers = [...file.text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? m[2] ?? m[3]!,
  );
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file.path), s)).split('\\').join('/').replace(/\.js$/, '.ts'));
}

/** Import rule violations, one line each: `from -> to: rule`. */
export function importViolations(files: SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const own = moduleOf(file.path);
    for (const target of importsOf(file)) {
      const targetModule = moduleOf(target);
      const base = target.split('/').at(-1)!;
      const above = targetModule !== undefined || /^src\/(bootstrap|cli)\//.test(target) || /^src\/(app|main)\.ts$/.test(target);
      if (/^src\/(db|platform|integrations)\//.test(file.path)) {
        if (above) out.push(`${file.path} -> ${target}: src/db, src/platform and src/integrations import no module`);
        continue;
      }
      if (targetModule === undefined || targetModule === own) continue;
      if (own !== undefined) {
        if (base !== 'index.ts' && !base.endsWith('.table.ts')) out.push(`${file.path} -> ${target}: another module only through its index.ts or *.table.ts`);
      } else if (base !== 'index.ts') {
        out.push(`${file.path} -> ${target}: code above the modules uses a module's index.ts`);
      }
    }
  }
  return out;
}

/** Table name -> owning module, from every `pgTable('name'` in src/modules/<module>/*.table.ts. */
function tableOwners(files: SourceFile[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const f of files) {
    if (!f.path.endsWith('.table.ts')) continue;
    for (const m of f.text.matchAll(/pgTable\(\s*'([a-z_]+)'/g)) owners.set(m[1]!, moduleOf(f.path)!);
  }
  return owners;
}

const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Query rule violations: SQL naming another module's table, or Drizzle reading or writing an imported foreign table. */
export function queryViolations(files: SourceFile[]): string[] {
  const owners = tableOwners(files);
  const out: string[] = [];
  for (const file of files) {
    const own = moduleOf(file.path);
    if (own === undefined || file.path.endsWith('.table.ts')) continue;
    const code = stripComments(file.text);
    for (const m of code.matchAll(/\b(?:from|join|into|update|truncate)\s+"?([a-z_]+)"?(?=[\s,;()`'"]|$)/gim)) {
      const owner = owners.get(m[1]!.toLowerCase());
      if (owner !== undefined && owner !== own) out.push(`${file.path}: SQL names ${m[1]} (owned by ${owner})`);
    }
    const foreign = new Set<string>();
    for (const m of file.text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"](\.\.\/[^'"]+\.table\.js)['"]/g)) {
      for (const name of m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/).at(-1)!)) if (name) foreign.add(name);
    }
    for (const name of foreign) {
      if (new RegExp(`\\.(?:from|insert|update|delete|innerJoin|leftJoin|rightJoin|fullJoin)\\(\\s*${name}\\b`).test(code)) {
        out.push(`${file.path}: Drizzle queries ${name}, a table of another module`);
      }
    }
  }
  return out;
}

describe('module boundaries', () => {
  const files = loadSources();

  it('finds the modules and their tables', () => {
    // Guards the checks below against reading an empty or misplaced tree.
    expect(new Set(files.map((f) => moduleOf(f.path)).filter(Boolean)).size).toBeGreaterThanOrEqual(10);
    expect(tableOwners(files).get('employee')).toBe('identity');
  });

  it('lets no import cross a boundary', () => {
    expect(importViolations(files)).toEqual([]);
  });

  it("lets no module query another module's table", () => {
    expect(queryViolations(files)).toEqual([]);
  });

  it('reports each kind of crossing it exists to catch', () => {
    const table = { path: 'src/modules/identity/employee.table.ts', text: "export const employee = pgTable('employee', {});" };
    const crossing: SourceFile[] = [
      table,
      { path: 'src/platform/realtime/x.ts', text: "import { a } from '../../modules/identity/index.js';" },
      { path: 'src/modules/records/x.ts', text: "import { b } from '../identity/employee.repository.js';" },
      { path: 'src/bootstrap/x.ts', text: "import { c } from '../modules/identity/directory.service.js';" },
      { path: 'src/modules/records/y.ts', text: "import { employee } from '../identity/employee.table.js';\nconst rows = db.select().from(employee);" },
      { path: 'src/modules/records/z.ts', text: 'const q = sql`select id from employee e where e.is_active`;' },
    ];
    expect(importViolations(crossing)).toHaveLength(3);
    expect(queryViolations(crossing)).toHaveLength(2);
    const allowed: SourceFile[] = [
      table,
      { path: 'src/modules/records/x.ts', text: "import { employee } from '../identity/employee.table.js';\n// a foreign key: references(() => employee.id)" },
      { path: 'src/modules/records/y.ts', text: "import { IdentityService } from '../identity/index.js';\n/** reads from employee through identity */" },
    ];
    expect([...importViolations(allowed), ...queryViolations(allowed)]).toEqual([]);
  });
});
