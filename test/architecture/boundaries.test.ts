/**
 * The module boundaries of docs/architecture.md, checked on the TypeScript syntax tree of every file
 * under src/:
 * - src/db imports nothing of ours outside src/db; src/platform and src/integrations import no module
 *   (nor anything above the modules: app.ts, main.ts, bootstrap, cli);
 * - a module imports another module only through its `index.ts` (its public surface) or its
 *   `*.table.ts` files (foreign keys), and never app.ts, main.ts, bootstrap or cli;
 * - code above the modules (app, main, bootstrap, cli) imports a module only through its `index.ts`;
 * - rooms: inside a module, a sub-folder with an `index.ts` is a room (a nested one too: a file belongs to
 *   the deepest); a room imports another room of
 *   its module only through that room's `index.ts` (or its `*.table.ts`) and never the module's own
 *   `index.ts` (no arrow back up);
 * - tables (`pgTable`) are declared only in `*.table.ts` files of a module;
 * - no module queries another module's table: not in SQL text (`from`, `join`, comma joins,
 *   schema-qualified names, `into`, `update`, `truncate`, `using`), not by interpolating its table object
 *   into SQL, not through Drizzle (a named or namespace import of the table used as anything but a
 *   column holder: `employee.id` in a foreign key); code outside src/modules queries no module's table;
 * - a view (`pgView`) is read outside its module only when it is a published contract (PUBLISHED_VIEWS),
 *   and a view reading another module's table must itself be a published contract.
 * The module table of docs/architecture.md ("owns" and "calls") is checked against the same tree.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/**
 * Views other modules may read, by SQL name, each with its owner and why it is a contract. A view not
 * listed here is private to its module.
 */
const PUBLISHED_VIEWS: Record<string, { module: string; reason: string }> = {
  active_employee: { module: 'identity', reason: "the active members, for SQL that must join them (routing's candidate agents)" },
  custom_field_value_count: { module: 'custom-fields', reason: "values per record, for records' contact lists (hasCustomFieldValues)" },
};

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
const isTableFile = (path: string) => path.endsWith('.table.ts');
/** Code above the modules: the composition root, the entry point, start-up and the command line. */
const isAbove = (path: string) => /^src\/(bootstrap|cli)\//.test(path) || /^src\/(app|main)\.ts$/.test(path);

/** One relative import, re-export, dynamic import or `import('…')` type of a file. */
interface ImportRef {
  /** Resolved repository path (`.js` read as `.ts`). */
  target: string;
  /** Local names bound to the target's named exports: local name -> exported name. */
  named: Map<string, string>;
  /** Local name of `import * as x`, if any. */
  namespace?: string;
}

interface Parsed {
  file: SourceFile;
  ast: ts.SourceFile;
  imports: ImportRef[];
}

function resolveSpecifier(from: string, specifier: string): string {
  return posix.normalize(posix.join(dirname(from), specifier)).replace(/\.js$/, '.ts');
}

function parse(file: SourceFile): Parsed {
  const ast = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const imports: ImportRef[] = [];
  const add = (specifier: ts.Node | undefined): ImportRef | undefined => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return undefined;
    const ref: ImportRef = { target: resolveSpecifier(file.path, specifier.text), named: new Map() };
    imports.push(ref);
    return ref;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const ref = add(node.moduleSpecifier);
      const bindings = node.importClause?.namedBindings;
      if (ref && bindings && ts.isNamespaceImport(bindings)) ref.namespace = bindings.name.text;
      if (ref && bindings && ts.isNamedImports(bindings)) {
        for (const e of bindings.elements) ref.named.set(e.name.text, (e.propertyName ?? e.name).getText(ast));
      }
    } else if (ts.isExportDeclaration(node)) {
      const ref = add(node.moduleSpecifier);
      if (ref && node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const e of node.exportClause.elements) ref.named.set(e.name.text, (e.propertyName ?? e.name).getText(ast));
      }
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(ast);
  return { file, ast, imports };
}

/**
 * The room of a file ("module/room", "module/room/sub"): the deepest folder under its module, at any depth,
 * that holds an `index.ts`; undefined for a file outside every room (the module's own files).
 */
function roomFinder(parsed: Parsed[]): (path: string) => string | undefined {
  const paths = new Set(parsed.map((p) => p.file.path));
  return (path) => {
    const m = /^src\/modules\/([^/]+)\/(.+)\/[^/]+$/.exec(path);
    if (!m) return undefined;
    for (let dir = m[2]!; dir !== '.'; dir = posix.dirname(dir)) if (paths.has(`src/modules/${m[1]}/${dir}/index.ts`)) return `${m[1]}/${dir}`;
    return undefined;
  };
}

/** Import rule violations, one line each: `from -> to: rule`. */
function importViolations(parsed: Parsed[]): string[] {
  const roomOf = roomFinder(parsed);
  const out: string[] = [];
  for (const { file, imports } of parsed) {
    const own = moduleOf(file.path);
    for (const { target } of imports) {
      if (!target.startsWith('src/')) continue;
      const targetModule = moduleOf(target);
      const say = (rule: string) => out.push(`${file.path} -> ${target}: ${rule}`);
      if (file.path.startsWith('src/db/')) {
        if (!target.startsWith('src/db/')) say('src/db imports nothing of ours outside src/db');
        continue;
      }
      if (/^src\/(platform|integrations)\//.test(file.path)) {
        if (targetModule !== undefined || isAbove(target)) say('src/platform and src/integrations import no module, nor the code above the modules');
        continue;
      }
      if (own !== undefined) {
        if (isAbove(target)) {
          say('a module imports neither app.ts, main.ts, bootstrap nor cli');
        } else if (targetModule !== undefined && targetModule !== own) {
          if (target !== `src/modules/${targetModule}/index.ts` && !isTableFile(target)) say('another module only through its index.ts or *.table.ts');
        } else if (targetModule === own) {
          const from = roomOf(file.path);
          const to = roomOf(target);
          if (from !== undefined && target === `src/modules/${own}/index.ts`) say("a room does not import its module's index.ts");
          else if (from !== undefined && to !== undefined && from !== to && target !== `src/modules/${to}/index.ts` && !isTableFile(target)) {
            say('another room only through its index.ts or *.table.ts');
          }
        }
      } else if (targetModule !== undefined && target !== `src/modules/${targetModule}/index.ts`) {
        say("code above the modules uses a module's index.ts");
      }
    }
  }
  return out;
}

interface Relation {
  kind: 'table' | 'view';
  /** SQL name. */
  name: string;
  module: string;
  /** Exported binding in its `*.table.ts`. */
  binding: string;
  file: string;
}

/** Name of the `pgTable`/`pgView` call at the root of an initializer such as `pgView('x', {...}).as(sql`…`)`, if any. */
function relationCall(expr: ts.Expression): { kind: 'table' | 'view'; name: string; call: ts.CallExpression } | undefined {
  let node: ts.Node = expr;
  while (true) {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && (callee.text === 'pgTable' || callee.text === 'pgView')) {
        const first = node.arguments[0];
        if (first && ts.isStringLiteralLike(first)) return { kind: callee.text === 'pgTable' ? 'table' : 'view', name: first.text, call: node };
        return undefined;
      }
      node = callee;
    } else if (ts.isPropertyAccessExpression(node)) node = node.expression;
    else return undefined;
  }
}

/** Every `pgTable` and `pgView` of the tree, and where a table is declared outside a module's `*.table.ts`. */
function relationsOf(parsed: Parsed[]): { relations: Relation[]; misplaced: string[] } {
  const relations: Relation[] = [];
  const misplaced: string[] = [];
  for (const { file, ast } of parsed) {
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && node.initializer && ts.isIdentifier(node.name)) {
        const rel = relationCall(node.initializer);
        const module = moduleOf(file.path);
        if (rel && (!isTableFile(file.path) || module === undefined)) misplaced.push(`${file.path}: ${rel.name} is declared outside a module's *.table.ts`);
        else if (rel && module) relations.push({ kind: rel.kind, name: rel.name, module, binding: node.name.text, file: file.path });
      }
      ts.forEachChild(node, visit);
    };
    visit(ast);
  }
  return { relations, misplaced };
}

const SQL_KEYWORDS = new Set(
  'where join inner left right full cross natural on using group order limit offset having window union intersect except returning set values select for lateral with as and or not when then else end do conflict where into from'.split(
    ' ',
  ),
);

/**
 * Relation names an SQL text reads or writes: the names after `from`, `join`, `into`, `update`,
 * `truncate [table]` and `using`, with the comma-separated lists that follow (`from a x, b y`),
 * schema-qualified (`public.employee`) or quoted (`"employee"`). Interpolations are `${…}` markers
 * (checked on the syntax tree), which stop a list.
 */
function sqlRelations(text: string): string[] {
  const code = text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
  const tokens = [...code.matchAll(/"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*|\$\{…\}|\S/g)].map((m) => m[0]);
  const ident = (t: string | undefined) => t !== undefined && /^(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)$/.test(t);
  const bare = (t: string) => (t.startsWith('"') ? t.slice(1, -1).replace(/""/g, '"') : t.toLowerCase());
  const found: string[] = [];
  const skipParens = (i: number) => {
    let depth = 0;
    for (; i < tokens.length; i++) {
      if (tokens[i] === '(') depth++;
      else if (tokens[i] === ')' && --depth === 0) return i + 1;
    }
    return i;
  };
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!.toLowerCase();
    if (!['from', 'join', 'into', 'update', 'truncate', 'using'].includes(word) || tokens[i - 1] === '.') continue;
    let j = i + 1;
    if (word === 'truncate' && tokens[j]?.toLowerCase() === 'table') j++;
    while (j < tokens.length) {
      while (['only', 'lateral'].includes(tokens[j]?.toLowerCase() ?? '')) j++;
      if (tokens[j] === '(') j = skipParens(j);
      else if (ident(tokens[j]) && !SQL_KEYWORDS.has(tokens[j]!.toLowerCase())) {
        let name = tokens[j]!;
        j++;
        while (tokens[j] === '.' && ident(tokens[j + 1])) {
          name = tokens[j + 1]!;
          j += 2;
        }
        // A set-returning function (unnest(...)), except `insert into t (columns)`.
        if (tokens[j] === '(' && word !== 'into') j = skipParens(j);
        else found.push(bare(name));
      } else break;
      if (tokens[j]?.toLowerCase() === 'as') j++;
      if (ident(tokens[j]) && !SQL_KEYWORDS.has(tokens[j]!.toLowerCase())) j++;
      if (tokens[j] === '(') j = skipParens(j); // column aliases: u(id, n)
      if (tokens[j] === ',') j++;
      else break;
    }
  }
  return found;
}

/** The text of a string or template literal, interpolations as `${…}`. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => '${…}' + s.literal.text).join('');
  return undefined;
}

/** The enclosing exported `pgView` of a node in a table file, if any. */
function enclosingView(node: ts.Node): string | undefined {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    if (ts.isVariableDeclaration(n) && n.initializer) {
      const rel = relationCall(n.initializer);
      if (rel?.kind === 'view') return rel.name;
    }
  }
  return undefined;
}

/**
 * Query rule violations: SQL text naming another module's table (or an unpublished view), a foreign
 * table object used as more than a column holder (Drizzle `from`/`join`/`insert`, `sql` interpolation,
 * aliasing), SQL naming any module's relation outside src/modules, and views reading another module's
 * tables without being published.
 */
function queryViolations(parsed: Parsed[]): string[] {
  const { relations, misplaced } = relationsOf(parsed);
  const byName = new Map(relations.map((r) => [r.name, r]));
  const tableBindings = new Map<string, Relation>(relations.filter((r) => r.kind === 'table').map((r) => [`${r.file}#${r.binding}`, r]));
  const out = [...misplaced];
  for (const { file, ast, imports } of parsed) {
    const own = moduleOf(file.path);
    // Local names bound to another module's table objects, and namespaces of its table files.
    const foreign = new Map<string, Relation>();
    const namespaces = new Map<string, string>();
    for (const ref of imports) {
      const targetModule = moduleOf(ref.target);
      if (targetModule === undefined || targetModule === own) continue;
      for (const [local, exported] of ref.named) {
        const rel =
          tableBindings.get(`${ref.target}#${exported}`) ?? relations.find((r) => r.kind === 'table' && r.module === targetModule && r.binding === exported);
        if (rel) foreign.set(local, rel);
      }
      if (ref.namespace !== undefined) namespaces.set(ref.namespace, targetModule);
    }
    const visit = (node: ts.Node): void => {
      const text = literalText(node);
      if (text !== undefined) {
        const view = isTableFile(file.path) ? enclosingView(node) : undefined;
        for (const name of sqlRelations(text)) {
          const rel = byName.get(name);
          if (rel === undefined) continue;
          if (own === undefined) out.push(`${file.path}: SQL names ${name} (owned by ${rel.module}) outside src/modules: call the owner's service`);
          else if (rel.module !== own && !(rel.kind === 'view' && PUBLISHED_VIEWS[name]?.module === rel.module)) {
            if (view !== undefined && PUBLISHED_VIEWS[view]) continue;
            out.push(`${file.path}: SQL${view ? ` of view ${view}` : ''} names ${name} (owned by ${rel.module})`);
          }
        }
      }
      // The query of a published view may read what its contract says it reads.
      const inPublishedView = isTableFile(file.path) && PUBLISHED_VIEWS[enclosingView(node) ?? ''] !== undefined;
      if (ts.isIdentifier(node) && !isDeclarationName(node) && !inPublishedView) {
        const rel = foreign.get(node.text);
        const ns = namespaces.get(node.text);
        const parent = node.parent;
        const asColumnHolder = ts.isPropertyAccessExpression(parent) && parent.expression === node;
        if (rel && !asColumnHolder && !inTypePosition(node))
          out.push(`${file.path}: uses ${node.text}, the table ${rel.name} of ${rel.module}, as more than a column holder`);
        if (ns !== undefined && !inTypePosition(node)) {
          if (ts.isPropertyAccessExpression(parent) && parent.expression === node) {
            const member = parent.name.text;
            const table = relations.find((r) => r.kind === 'table' && r.module === ns && r.binding === member);
            const grand = parent.parent;
            const memberAsColumnHolder = ts.isPropertyAccessExpression(grand) && grand.expression === parent;
            if (table && !memberAsColumnHolder)
              out.push(`${file.path}: uses ${node.text}.${member}, the table ${table.name} of ${ns}, as more than a column holder`);
          } else {
            out.push(`${file.path}: uses the namespace ${node.text} of ${ns}'s files as a value`);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(ast);
  }
  return out;
}

/** The identifier names a declaration or an import/export binding (not a use). */
function isDeclarationName(node: ts.Identifier): boolean {
  const p = node.parent;
  return (
    ts.isImportSpecifier(p) ||
    ts.isExportSpecifier(p) ||
    ts.isNamespaceImport(p) ||
    ts.isImportClause(p) ||
    (ts.isPropertyAccessExpression(p) && p.name === node) ||
    (ts.isPropertyAssignment(p) && p.name === node) ||
    (ts.isVariableDeclaration(p) && p.name === node) ||
    (ts.isParameter(p) && p.name === node) ||
    (ts.isQualifiedName(p) && p.right === node)
  );
}

/** Inside a type (`typeof employee.$inferSelect`): no query runs there. */
function inTypePosition(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isTypeNode(n)) return true;
    if (ts.isExpression(n) || ts.isStatement(n)) return false;
  }
  return false;
}

/** The rows of docs/architecture.md's module table: module -> owned relation names, called modules. */
function moduleTable(markdown: string): Map<string, { owns: Set<string>; calls: Set<string> }> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Modules, what each owns, whom each calls'));
  if (section === undefined) throw new Error('docs/architecture.md has no section "Modules, what each owns, whom each calls"');
  const rows = new Map<string, { owns: Set<string>; calls: Set<string> }>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || cells[1] === 'module' || /^-+$/.test(cells[1]!)) continue;
    const owns = new Set([...cells[2]!.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1]!));
    const callsText = cells[3]!.replace(/\([^)]*\)/g, ' ');
    const calls = new Set([...callsText.matchAll(/(?<![\w-])([a-z]+(?:-[a-z]+)*)(?![\w-])/g)].map((m) => m[1]!));
    rows.set(cells[1]!, { owns, calls });
  }
  return rows;
}

/** Module -> the other modules whose index.ts it imports (its calls, type imports included). */
function moduleCalls(parsed: Parsed[]): Map<string, Set<string>> {
  const calls = new Map<string, Set<string>>();
  for (const { file, imports } of parsed) {
    const own = moduleOf(file.path);
    if (own === undefined) continue;
    if (!calls.has(own)) calls.set(own, new Set());
    for (const { target } of imports) {
      const to = moduleOf(target);
      if (to !== undefined && to !== own && target === `src/modules/${to}/index.ts`) calls.get(own)!.add(to);
    }
  }
  return calls;
}

/** Room -> the other rooms of its module it imports ("module/room"), from files inside rooms. */
function roomCalls(parsed: Parsed[]): Map<string, Set<string>> {
  const roomOf = roomFinder(parsed);
  const calls = new Map<string, Set<string>>();
  for (const { file, imports } of parsed) {
    const from = roomOf(file.path);
    if (from === undefined) continue;
    if (!calls.has(from)) calls.set(from, new Set());
    for (const { target } of imports) {
      const to = roomOf(target);
      if (to !== undefined && to !== from) calls.get(from)!.add(to);
    }
  }
  return calls;
}

/** Every circle of a call graph, each once, as `a -> b -> a`. */
function circles(graph: Map<string, Set<string>>): string[] {
  const out = new Set<string>();
  const walk = (node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = path.slice(at);
        const start = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        out.add([...rotated, rotated[0]].join(' -> '));
      } else walk(next, [...path, next]);
    }
  };
  for (const node of graph.keys()) walk(node, [node]);
  return [...out].sort();
}

/** Differences between the documented module table and the tree, one line each. */
function moduleTableDrift(parsed: Parsed[], markdown: string): string[] {
  const table = moduleTable(markdown);
  const calls = moduleCalls(parsed);
  const { relations } = relationsOf(parsed);
  const out: string[] = [];
  const modules = [...calls.keys()].sort();
  for (const m of modules) if (!table.has(m)) out.push(`${m}: no row`);
  for (const m of table.keys()) if (!calls.has(m)) out.push(`${m}: a row for no module`);
  for (const m of modules) {
    const row = table.get(m);
    if (row === undefined) continue;
    const owned = new Set(relations.filter((r) => r.module === m).map((r) => r.name));
    for (const r of owned) if (!row.owns.has(r)) out.push(`${m}: owns ${r}, not listed`);
    for (const r of row.owns) if (!owned.has(r)) out.push(`${m}: listed as owning ${r}, which it does not declare`);
    const documentedCalls = new Set([...row.calls].filter((c) => calls.has(c)));
    for (const c of calls.get(m)!) if (!documentedCalls.has(c)) out.push(`${m}: calls ${c}, not listed`);
    for (const c of documentedCalls) if (!calls.get(m)!.has(c)) out.push(`${m}: listed as calling ${c}, which it does not import`);
  }
  return out;
}

describe('module boundaries', () => {
  const parsed = loadSources().map(parse);

  it('finds the modules and their tables', () => {
    // Guards the checks below against reading an empty or misplaced tree.
    expect(new Set(parsed.map((p) => moduleOf(p.file.path)).filter(Boolean)).size).toBeGreaterThanOrEqual(10);
    const { relations } = relationsOf(parsed);
    expect(relations.find((r) => r.name === 'employee')?.module).toBe('identity');
    for (const [name, { module }] of Object.entries(PUBLISHED_VIEWS)) {
      expect(
        relations.find((r) => r.name === name),
        name,
      ).toMatchObject({ kind: 'view', module });
    }
  });

  it('lets no import cross a boundary', () => {
    expect(importViolations(parsed)).toEqual([]);
  });

  it("lets no module query another module's table, and no code outside the modules query one", () => {
    expect(queryViolations(parsed)).toEqual([]);
  });

  it('has no circle among the modules, nor among the rooms of a module', () => {
    expect(circles(moduleCalls(parsed))).toEqual([]);
    expect(circles(roomCalls(parsed))).toEqual([]);
  });

  it('matches the module table of docs/architecture.md (owns, calls)', () => {
    expect(moduleTableDrift(parsed, readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'))).toEqual([]);
  });
});

describe('module boundaries on synthetic trees', () => {
  const tables: SourceFile[] = [
    {
      path: 'src/modules/identity/employee.table.ts',
      text: "export const employee = pgTable('employee', {});\nexport const activeEmployee = pgView('active_employee', {}).as(sql`select id from employee where is_active`);",
    },
    {
      path: 'src/modules/records/lead.table.ts',
      text: "export const lead = pgTable('lead', {});\nexport const leadSummary = pgView('lead_summary', {}).as(sql`select id from lead`);",
    },
  ];
  const run = (files: SourceFile[]) => {
    const parsed = [...tables, ...files].map(parse);
    return [...importViolations(parsed), ...queryViolations(parsed)];
  };
  const file = (path: string, text: string): SourceFile => ({ path, text });

  it.each([
    ['a platform file importing a module', file('src/platform/realtime/x.ts', "import { a } from '../../modules/identity/index.js';")],
    ['src/db importing the platform', file('src/db/x.ts', "import { COUNT_CAP } from '../platform/http/pagination.js';")],
    ['src/db importing the platform lazily', file('src/db/x.ts', "const m = await import('../platform/telemetry/tracing.js');")],
    ["a module importing another's repository", file('src/modules/records/x.ts', "import { b } from '../identity/employee.repository.js';")],
    ["a module re-exporting another's repository", file('src/modules/records/x.ts', "export { b } from '../identity/employee.repository.js';")],
    ["a module typing with another's inner file", file('src/modules/records/x.ts', "let v: import('../identity/employee.repository.js').Row;")],
    ["bootstrap importing a module's inner file", file('src/bootstrap/x.ts', "import { c } from '../modules/identity/directory.service.js';")],
    ['(f) a module importing app.ts', file('src/modules/records/x.ts', "import { buildApp } from '../../app.js';")],
    ['(f) a module importing bootstrap', file('src/modules/records/x.ts', "import { seedDemo } from '../../bootstrap/demo-seed.js';")],
    [
      'Drizzle reading an imported foreign table',
      file('src/modules/records/y.ts', "import { employee } from '../identity/employee.table.js';\nconst rows = db.select().from(employee);"),
    ],
    [
      'Drizzle reading a renamed foreign table',
      file('src/modules/records/y.ts', "import { employee as e } from '../identity/employee.table.js';\nconst rows = db.select().from(e).innerJoin(x, y);"),
    ],
    ['a foreign table aliased', file('src/modules/records/y.ts', "import { employee } from '../identity/employee.table.js';\nconst t = employee;")],
    ['SQL text naming a foreign table', file('src/modules/records/z.ts', 'const q = sql`select id from employee e where e.is_active`;')],
    ['SQL in a plain string', file('src/modules/records/z.ts', "await database.executeSql('update employee set is_active = false where id = $1', [id]);")],
    [
      '(a) a foreign table interpolated into SQL',
      file('src/modules/records/z.ts', "import { employee } from '../identity/employee.table.js';\nconst q = sql`select id from ${employee} where is_active`;"),
    ],
    [
      '(b) a namespace import of a foreign table file, queried',
      file('src/modules/records/z.ts', "import * as idt from '../identity/employee.table.js';\nconst rows = db.select().from(idt.employee);"),
    ],
    [
      '(b) a namespace import of a foreign table file, interpolated',
      file('src/modules/records/z.ts', "import * as idt from '../identity/employee.table.js';\nconst q = sql`select 1 from ${idt.employee}`;"),
    ],
    [
      '(b) a namespace import of a foreign table file, passed on',
      file('src/modules/records/z.ts', "import * as idt from '../identity/employee.table.js';\nconst schema = { ...idt };"),
    ],
    ['(c) a comma join', file('src/modules/records/z.ts', 'const q = sql`select l.id from lead l, employee e where e.id = l.seller_id`;')],
    ['(c) a schema-qualified name', file('src/modules/records/z.ts', 'const q = sql`select id from public.employee where is_active`;')],
    ['(c) a quoted schema-qualified name', file('src/modules/records/z.ts', 'const q = sql`select id from "public"."employee"`;')],
    ['(c) a comma join after a function', file('src/modules/records/z.ts', 'const q = sql`select 1 from unnest(${ids}::int[]) as u(id), employee e`;')],
    ['(d) SQL outside src/modules', file('src/bootstrap/demo-seed.ts', 'const rows = await queryRows(db, sql`select count(*)::int as n from lead`);')],
    ['(d) SQL in the platform', file('src/platform/x.ts', "await database.executeSql('delete from employee');")],
    [
      "(e) a view reading another module's table",
      file(
        'src/modules/records/seller.table.ts',
        "export const sellers = pgView('seller_view', {}).as(sql`select e.id from employee e join lead l on l.seller_id = e.id`);",
      ),
    ],
    [
      "(e) a view reading another module's table through Drizzle",
      file(
        'src/modules/records/seller.table.ts',
        "import { employee } from '../identity/employee.table.js';\nexport const sellers = pgView('seller_view').as((qb) => qb.select().from(employee));",
      ),
    ],
    ['an unpublished view of another module', file('src/modules/cartera/z.ts', 'const q = sql`select id from lead_summary`;')],
    ['a table declared outside a *.table.ts', file('src/modules/records/lead.repository.ts', "const shadow = pgTable('shadow', {});")],
  ])('reports %s', (_name, crossing) => {
    expect(run([crossing])).toHaveLength(1);
  });

  it('reports each room crossing', () => {
    const rooms = [
      file('src/modules/talk/index.ts', "export { a } from './inbound/index.js';"),
      file('src/modules/talk/inbound/index.ts', "export { a } from './inbox.js';"),
      file('src/modules/talk/inbound/inbox.ts', ''),
      file('src/modules/talk/outbound/index.ts', "export { send } from './send.js';"),
    ];
    const crossings = [
      file('src/modules/talk/outbound/send.ts', "import { a } from '../inbound/inbox.js';"),
      file('src/modules/talk/outbound/deep/x.ts', "import { a } from '../../inbound/inbox.js';"),
      file('src/modules/talk/outbound/y.ts', "import { a } from '../index.js';"),
      file('src/modules/records/x.ts', "import { a } from '../talk/inbound/index.js';"),
    ];
    expect(run([...rooms, ...crossings]).map((v) => v.split(' -> ')[0])).toEqual(crossings.map((f) => f.path));
    const allowed = [
      file(
        'src/modules/talk/outbound/send.ts',
        "import { a } from '../inbound/index.js';\nimport { conversation } from '../inbound/conversation.table.js';\nimport { b } from './builder.js';",
      ),
      file('src/modules/talk/outbound/deep/x.ts', "import { send } from '../send.js';"),
      file('src/modules/talk/shared.ts', "import { a } from './inbound/inbox.js';"),
      file('src/modules/records/x.ts', "import { a } from '../talk/index.js';"),
    ];
    expect(run([...rooms, ...allowed])).toEqual([]);
  });

  it('lets published contracts, foreign keys and prose pass', () => {
    const allowed = [
      file(
        'src/modules/records/a.table.ts',
        "import { employee } from '../identity/employee.table.js';\nexport const t = pgTable('x', { e: integer().references(() => employee.id) });\ntype E = typeof employee.$inferSelect;",
      ),
      file(
        'src/modules/records/y.ts',
        "import { IdentityService } from '../identity/index.js';\n/** reads from employee through identity */\nconst q = sql`select l.id from lead l, active_employee e where e.id = l.seller_id`;",
      ),
      file('src/modules/records/z.ts', "throw new Error('cannot move this lead from one seller to another');"),
      file('src/modules/identity/q.ts', 'const q = sql`select id from employee e, public.employee f join ${employee} g on true`;'),
      file('src/modules/cartera/w.ts', 'const q = sql`select extract(epoch from now()), substring(name from 2) from cartera_item`;'),
    ];
    expect(run(allowed)).toEqual([]);
  });

  it('reads SQL relations from comma lists, schema names and quotes', () => {
    expect(sqlRelations('select * from a x, public.b as y, "c" join d on true, (select 1 from e) f where g in (select 1 from h)')).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'h',
    ]);
    expect(sqlRelations('insert into a (x) select x from b; update c set y = 1 from d, e where true; truncate table f, g; delete from h using i')).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
    ]);
    expect(sqlRelations("select 'from a' as s from ${…} x, b -- from c")).toEqual([]);
  });

  it('reports circles among modules and among rooms', () => {
    const tree = [
      file('src/modules/a/index.ts', "import { b } from '../b/index.js';"),
      file('src/modules/b/index.ts', "import { c } from '../c/index.js';"),
      file('src/modules/c/x.ts', "import { a } from '../a/index.js';"),
      file('src/modules/talk/in/index.ts', "export { x } from '../out/index.js';"),
      file('src/modules/talk/out/index.ts', "export { y } from './y.js';"),
      file('src/modules/talk/out/y.ts', "import { x } from '../in/index.js';"),
    ].map(parse);
    expect(circles(moduleCalls(tree))).toEqual(['a -> b -> c -> a']);
    expect(circles(roomCalls(tree))).toEqual(['talk/in -> talk/out -> talk/in']);
    expect(circles(moduleCalls(tree.slice(0, 2)))).toEqual([]);
  });

  it('checks the documented module table against imports and tables', () => {
    const tree = [
      ...tables,
      file('src/modules/records/a.ts', "import { s } from '../identity/index.js';"),
      file('src/modules/identity/index.ts', ''),
      file('src/modules/records/index.ts', ''),
    ].map(parse);
    const doc = (identity: string, records: string) =>
      `# A\n## Modules, what each owns, whom each calls\n| module | owns | calls |\n|---|---|---|\n${identity}\n${records}\n## Next\n`;
    const right = doc('| identity | `employee`; view `active_employee` | |', '| records | `lead`, view `lead_summary` | identity (`assertActiveMember`) |');
    expect(moduleTableDrift(tree, right)).toEqual([]);
    expect(moduleTableDrift(tree, doc('| identity | `employee`; view `active_employee` | records |', '| records | `lead` | |'))).toEqual([
      'identity: listed as calling records, which it does not import',
      'records: owns lead_summary, not listed',
      'records: calls identity, not listed',
    ]);
  });
});
