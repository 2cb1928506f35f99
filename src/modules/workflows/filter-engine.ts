/**
 * The filter engine (SPEC "Filter engine"): pure, no I/O. `evaluate(context, filters)` answers whether a
 * trigger or a condition holds for a context such as `{ trigger: {...}, workflow: { step_visits: {...} } }`.
 *
 * - A filter is `{ field, operator, value }`; `field` is a dotted path into the context
 *   (`trigger.message_text`, `erp.recent_invoices.count`, `workflow.step_visits.step_2`).
 * - A list of filters holds when all hold (SPEC's MVP shape, valid as it is). Beyond the MVP, an item may
 *   be a group `{ any: [...] }` (OR) or `{ all: [...] }` (AND), nested freely: `1 AND (2 OR 3)` is
 *   `[f1, { any: [f2, f3] }]`. An empty `any` holds for nothing, an empty `all` for everything.
 * - Operators: eq, neq, contains, not_contains, in, not_in, is_empty (undefined, null, '', [] or {}),
 *   is_not_empty, gt, gte, lt, lte (numbers, numeric strings count), and the date operators before and
 *   after, whose value is an ISO 8601 instant or a time relative to now: `{ ago: 'P3D' }` or
 *   `{ from_now: 'PT2H' }` (ISO 8601 durations), so "more than 3 days ago" is `before { ago: 'P3D' }`.
 * - Types: text compares exactly unless the field is marked case-insensitive (`caseInsensitive`); on an
 *   array field, contains asks for an element and in / not_in for any common element; eq on arrays is
 *   equality as sets. Comparisons and date operators are false when the value is missing or of another
 *   type (so `gt` and `lte` are complements only where the value is a number).
 * - Complements: neq, not_contains, not_in and is_not_empty are exactly the negation of eq, contains, in
 *   and is_empty for every context; `negate` rewrites a filter tree into its negation (De Morgan).
 *
 * Filters are checked against the field registry when a workflow is saved (field-registry.ts); the
 * engine never throws on a context, it answers false for what does not fit.
 */
import { Duration } from 'luxon';

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'contains',
  'not_contains',
  'in',
  'not_in',
  'is_empty',
  'is_not_empty',
  'gt',
  'gte',
  'lt',
  'lte',
  'before',
  'after',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One condition on one field of the context. `value` is absent for is_empty and is_not_empty. */
interface Filter {
  field: string;
  operator: FilterOperator;
  value?: unknown;
}

/** `any`: at least one item holds (OR); `all`: every item holds (AND). */
export type FilterGroup = { any: FilterNode[] } | { all: FilterNode[] };
export type FilterNode = Filter | FilterGroup;

export interface EvaluateOptions {
  /** Whether text at `field` compares case-insensitively (the registry's `caseInsensitive`). */
  caseInsensitive?: (field: string) => boolean;
  /** The evaluation time for relative date values; default the current time. */
  now?: () => number;
}

export type CompiledFilters = (context: unknown) => boolean;

export const isGroup = (node: FilterNode): node is FilterGroup => 'any' in node || 'all' in node;

/** Compiles `filters` once into a predicate over contexts (paths split, values normalised). */
export function compileFilters(filters: readonly FilterNode[], options: EvaluateOptions = {}): CompiledFilters {
  const parts = filters.map((f) => compileNode(f, options));
  return (context) => {
    for (const p of parts) if (!p(context)) return false;
    return true;
  };
}

/** Whether every filter holds in `context` (compiles on each call: keep the compiled form for hot paths). */
export function evaluate(context: unknown, filters: readonly FilterNode[], options: EvaluateOptions = {}): boolean {
  return compileFilters(filters, options)(context);
}

const COMPLEMENT: Record<FilterOperator, FilterOperator> = {
  eq: 'neq',
  neq: 'eq',
  contains: 'not_contains',
  not_contains: 'contains',
  in: 'not_in',
  not_in: 'in',
  is_empty: 'is_not_empty',
  is_not_empty: 'is_empty',
  gt: 'lte',
  lte: 'gt',
  gte: 'lt',
  lt: 'gte',
  // Not exact at the boundary instant (before t, after t are both false at t): dates negate as "not before".
  before: 'after',
  after: 'before',
};

/** The negation of `node` by De Morgan's laws and operator complements (exact except at gt/lte on non-numbers and at date boundaries). */
export function negate(node: FilterNode): FilterNode {
  if ('any' in node) return { all: node.any.map(negate) };
  if ('all' in node) return { any: node.all.map(negate) };
  const out: Filter = { field: node.field, operator: COMPLEMENT[node.operator] };
  if ('value' in node) out.value = node.value;
  return out;
}

/** Reads a dotted path; array elements by index (`items.0.name`). */
export function readPath(context: unknown, path: readonly string[]): unknown {
  let current = context;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function compileNode(node: FilterNode, options: EvaluateOptions): CompiledFilters {
  if ('any' in node) {
    const parts = node.any.map((n) => compileNode(n, options));
    return (c) => parts.some((p) => p(c));
  }
  if ('all' in node) return compileFilters(node.all, options);
  const path = node.field.split('.');
  const test = compileTest(node, options.caseInsensitive?.(node.field) ?? false, options.now ?? Date.now);
  return (c) => test(readPath(c, path));
}

type Test = (actual: unknown) => boolean;

function compileTest(f: Filter, ci: boolean, now: () => number): Test {
  const norm = (v: unknown) => (ci && typeof v === 'string' ? v.toLowerCase() : v);
  switch (f.operator) {
    case 'eq': {
      const expected = norm(f.value);
      return (a) => equals(a, expected, norm);
    }
    case 'neq': {
      const expected = norm(f.value);
      return (a) => !equals(a, expected, norm);
    }
    case 'contains': {
      const expected = norm(f.value);
      return (a) => contains(a, expected, norm);
    }
    case 'not_contains': {
      const expected = norm(f.value);
      return (a) => !contains(a, expected, norm);
    }
    case 'in': {
      const set = new Set(asArray(f.value).map(norm));
      return (a) => isIn(a, set, norm);
    }
    case 'not_in': {
      const set = new Set(asArray(f.value).map(norm));
      return (a) => !isIn(a, set, norm);
    }
    case 'is_empty':
      return isEmpty;
    case 'is_not_empty':
      return (a) => !isEmpty(a);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const expected = toNumber(f.value);
      if (expected === undefined) return () => false;
      const cmp = NUMERIC[f.operator];
      return (a) => {
        const n = toNumber(a);
        return n !== undefined && cmp(n, expected);
      };
    }
    case 'before':
    case 'after': {
      const at = instantOf(f.value, now);
      if (at === undefined) return () => false;
      const before = f.operator === 'before';
      return (a) => {
        const t = toTime(a);
        const bound = at();
        return t !== undefined && (before ? t < bound : t > bound);
      };
    }
  }
}

const NUMERIC = {
  gt: (a: number, b: number) => a > b,
  gte: (a: number, b: number) => a >= b,
  lt: (a: number, b: number) => a < b,
  lte: (a: number, b: number) => a <= b,
};

function equals(actual: unknown, expected: unknown, norm: (v: unknown) => unknown): boolean {
  if (Array.isArray(actual)) {
    if (!Array.isArray(expected)) return false;
    const a = new Set(actual.map(norm));
    const b = new Set(expected);
    return a.size === b.size && [...a].every((x) => b.has(x));
  }
  const a = norm(actual);
  if (a === expected) return true;
  // A numeric string in the context (an ERP amount) equals the number.
  return typeof expected === 'number' && typeof a === 'string' && toNumber(a) === expected;
}

function contains(actual: unknown, expected: unknown, norm: (v: unknown) => unknown): boolean {
  if (typeof actual === 'string') return typeof expected === 'string' && (norm(actual) as string).includes(expected);
  if (Array.isArray(actual)) return actual.some((x) => norm(x) === expected);
  return false;
}

function isIn(actual: unknown, set: Set<unknown>, norm: (v: unknown) => unknown): boolean {
  if (Array.isArray(actual)) return actual.some((x) => set.has(norm(x)));
  return actual !== undefined && actual !== null && set.has(norm(actual));
}

/** SPEC: null or empty. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object' && !(v instanceof Date)) return Object.keys(v).length === 0;
  return false;
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const NUMERIC_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v)) return Number(v);
  return undefined;
}

function toTime(v: unknown): number | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v.getTime();
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/** A date operator's bound as a function of now, or undefined when the value is not a date. */
function instantOf(value: unknown, now: () => number): (() => number) | undefined {
  if (typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : () => t;
  }
  if (value !== null && typeof value === 'object') {
    const rel = value as Record<string, unknown>;
    const iso = typeof rel.ago === 'string' ? rel.ago : typeof rel.from_now === 'string' ? rel.from_now : undefined;
    if (iso === undefined) return undefined;
    const d = Duration.fromISO(iso);
    if (!d.isValid) return undefined;
    const ms = d.toMillis() * (typeof rel.ago === 'string' ? -1 : 1);
    return () => now() + ms;
  }
  return undefined;
}
