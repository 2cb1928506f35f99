/**
 * Named SQL statements. Every whole statement a module writes by hand (rather than with Drizzle's query
 * builder) is declared with `statement` or `shapedStatement` in a `<name>.sql.ts` file of the module that
 * owns its tables, and run through the functions here. test/db/sql-statements.test.ts finds every
 * `src/**\/*.sql.ts`, and PREPAREs each statement it exports, in each of its shapes, against the migrated
 * schema: a renamed column fails the suite, not a request.
 */
import { fillPlaceholders, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { preparedIn, type Database, type Db } from './client.js';

const STATEMENT = Symbol.for('crm.sql-statement');

/** A fixed statement: `$n` text, run with positional values. */
export interface Statement {
  readonly [STATEMENT]: 'text';
  /** Prepared-statement name, unique across the code base (`<module>_<what>`). */
  readonly name: string;
  readonly text: string;
}

/**
 * A statement whose text depends on a *shape* (which filters are present, the sort, the page size): built
 * with Drizzle's `sql`, values as `sql.placeholder(name)`, run with named values. `shapes` lists every
 * shape the text can take (or one representative of shapes that differ only in a literal, such as the
 * page size), so that the schema check prepares each.
 */
export interface ShapedStatement<S> {
  readonly [STATEMENT]: 'shaped';
  /** Prefix of the prepared-statement names of its shapes, unique across the code base. */
  readonly name: string;
  readonly shapes: readonly S[];
  readonly build: (shape: S) => SQL;
}

/** A fixed `$n` statement named `name`. */
export function statement(name: string, text: string): Statement {
  return { [STATEMENT]: 'text', name, text };
}

/**
 * A statement built from a shape. Without `shapes` it has one shape (`undefined`): a Drizzle template
 * with named placeholders whose text never changes.
 */
export function shapedStatement<S = undefined>(name: string, definition: { shapes?: readonly S[]; build: (shape: S) => SQL }): ShapedStatement<S> {
  return { [STATEMENT]: 'shaped', name, shapes: definition.shapes ?? [undefined as S], build: definition.build };
}

/**
 * Every combination of the choices (a cartesian product), for `shapes`:
 * `everyShape({ group: [false, true], sort: ['name', '-name'] })` gives four shapes.
 */
export function everyShape<T extends Record<string, readonly unknown[]>>(choices: T): { [K in keyof T]: T[K][number] }[] {
  let shapes: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(choices)) shapes = shapes.flatMap((shape) => values.map((value) => ({ ...shape, [key]: value })));
  return shapes as { [K in keyof T]: T[K][number] }[];
}

export function isStatement(value: unknown): value is Statement | ShapedStatement<unknown> {
  return typeof value === 'object' && value !== null && STATEMENT in value;
}

const dialect = new PgDialect();

/** A shape rendered to `$n` text: its prepared-statement name and its parameters (placeholders, filled per call). */
export interface RenderedShape {
  name: string;
  text: string;
  params: unknown[];
}

// Statement -> shape key -> rendered text. Bounded: shapes combine a few flags, a sort and the page size.
const rendered = new WeakMap<ShapedStatement<never>, Map<string, RenderedShape>>();

/** `shape` of `stmt` as `$n` text, rendered once per statement and shape (`build` may read only the shape). */
export function renderShape<S>(stmt: ShapedStatement<S>, shape: S): RenderedShape {
  const key = stmt as unknown as ShapedStatement<never>;
  let byShape = rendered.get(key);
  if (byShape === undefined) rendered.set(key, (byShape = new Map<string, RenderedShape>()));
  const shapeKey = JSON.stringify(shape) ?? '';
  let found = byShape.get(shapeKey);
  if (found === undefined) {
    const query = dialect.sqlToQuery(stmt.build(shape));
    found = { name: `${stmt.name}_${byShape.size + 1}`, text: query.sql, params: query.params };
    byShape.set(shapeKey, found);
  }
  return found;
}

/** Every text `stmt` can take, one per shape, for the schema check. */
export function textsOf(stmt: Statement | ShapedStatement<unknown>): { shape: unknown; text: string }[] {
  if (stmt[STATEMENT] === 'text') return [{ shape: undefined, text: stmt.text }];
  return stmt.shapes.map((shape) => ({ shape, text: dialect.sqlToQuery(stmt.build(shape)).sql }));
}

/** Runs `stmt` with `values` as a named prepared statement of `database` and returns its rows. */
export function runStatement<T>(database: Pick<Database, 'preparedQuery'>, stmt: Statement, values: unknown[]): Promise<T[]> {
  return database.preparedQuery<T>(stmt.name, stmt.text, values);
}

/**
 * Runs `stmt` on the connection behind `db` (a transaction's, inside one): see `preparedIn`. Rows come as
 * the driver parses them: timestamps as `Date` (Drizzle's `db.execute` leaves them as text).
 */
export function runStatementIn<T>(db: Db, stmt: Statement, values: unknown[]): Promise<T[]> {
  return preparedIn<T>(db, stmt.name, stmt.text, values);
}

/** Runs `shape` of `stmt` with its placeholders' `values` on the connection behind `db` (see `preparedIn`). */
export function runShapedIn<T, S>(db: Db, stmt: ShapedStatement<S>, shape: S, values: Record<string, unknown>): Promise<T[]> {
  const { name, text, params } = renderShape(stmt, shape);
  return preparedIn<T>(db, name, text, fillPlaceholders(params, values));
}
