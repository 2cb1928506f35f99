/**
 * The filter engine and the field registry as pure functions: every operator on every type of the
 * registry (a true and a false case per cell, null and missing values included), dotted paths, groups,
 * the date operators with an injected clock, the registry's refusals (every operator a field does not
 * allow), and property tests of the algebra (De Morgan over groups, complements of the negated operators).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilters, evaluate, FILTER_OPERATORS, negate, type FilterNode, type FilterOperator } from '../../../src/modules/workflows/filter-engine.js';
import {
  fieldDefinition,
  FIELD_REGISTRY,
  TRIGGER_EVENTS,
  validateFilters,
  type FieldDefinition,
  type FieldType,
} from '../../../src/modules/workflows/field-registry.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const now = () => NOW;
const ctx = {
  trigger: {
    message_text: 'Quiero el PRECIO del plan',
    sender_name: 'Ana López',
    empty_text: '',
    is_first_message: true,
    channel_type_code: 'chatapp_api',
    assigned_employee_ids: [7, 9],
    no_employees: [],
    contact_id: 42,
    missing_value: null,
    occurred_at: '2026-03-10T11:00:00Z',
  },
  erp: { recent_invoices: { count: 3, total: '1250.50' } },
  workflow: { step_visits: { step_2: 2 } },
};

type Row = [string, FilterOperator, unknown, boolean];
const CI = new Set(['trigger.message_text', 'trigger.sender_name']);
const check = (field: string, operator: FilterOperator, value: unknown) =>
  evaluate(ctx, [{ field, operator, ...(value === undefined ? {} : { value }) }], { caseInsensitive: (f) => CI.has(f), now });

describe('operators on the fields of an example context', () => {
  const rows: Row[] = [
    // text (case-insensitive where the registry says so)
    ['trigger.message_text', 'contains', 'precio', true],
    ['trigger.message_text', 'contains', 'descuento', false],
    ['trigger.message_text', 'not_contains', 'descuento', true],
    ['trigger.message_text', 'not_contains', 'PRECIO', false],
    ['trigger.sender_name', 'eq', 'ana lópez', true],
    ['trigger.sender_name', 'neq', 'ana lópez', false],
    ['trigger.channel_type_code', 'eq', 'chatapp_api', true],
    ['trigger.channel_type_code', 'eq', 'CHATAPP_API', false], // exact where not marked case-insensitive
    ['trigger.channel_type_code', 'in', ['social_dm', 'chatapp_api'], true],
    ['trigger.channel_type_code', 'not_in', ['social_dm', 'chatapp_api'], false],
    ['trigger.channel_type_code', 'not_in', ['social_dm'], true],
    ['trigger.message_text', 'is_empty', undefined, false],
    ['trigger.empty_text', 'is_empty', undefined, true],
    ['trigger.missing_value', 'is_empty', undefined, true],
    ['trigger.absent', 'is_empty', undefined, true],
    ['trigger.empty_text', 'is_not_empty', undefined, false],
    ['trigger.sender_name', 'is_not_empty', undefined, true],
    // booleans
    ['trigger.is_first_message', 'eq', true, true],
    ['trigger.is_first_message', 'eq', false, false],
    ['trigger.is_first_message', 'neq', false, true],
    // numbers, numeric text from the ERP, step visits
    ['erp.recent_invoices.count', 'gt', 2, true],
    ['erp.recent_invoices.count', 'gt', 3, false],
    ['erp.recent_invoices.count', 'gte', 3, true],
    ['erp.recent_invoices.count', 'lt', 3, false],
    ['erp.recent_invoices.count', 'lte', 3, true],
    ['erp.recent_invoices.total', 'gt', 1000, true],
    ['erp.recent_invoices.total', 'eq', 1250.5, true],
    ['workflow.step_visits.step_2', 'gte', 2, true],
    ['workflow.step_visits.step_9', 'gt', 0, false],
    ['trigger.contact_id', 'in', [41, 42], true],
    ['trigger.contact_id', 'eq', 42, true],
    ['trigger.sender_name', 'gt', 1, false], // comparisons on non-numbers are false
    // arrays
    ['trigger.assigned_employee_ids', 'contains', 7, true],
    ['trigger.assigned_employee_ids', 'contains', 8, false],
    ['trigger.assigned_employee_ids', 'not_contains', 8, true],
    ['trigger.assigned_employee_ids', 'in', [1, 9], true],
    ['trigger.assigned_employee_ids', 'not_in', [1, 2], true],
    ['trigger.assigned_employee_ids', 'eq', [9, 7], true],
    ['trigger.assigned_employee_ids', 'eq', [9], false],
    ['trigger.no_employees', 'is_empty', undefined, true],
    ['trigger.assigned_employee_ids', 'is_not_empty', undefined, true],
    // dates: absolute and relative to the injected clock
    ['trigger.occurred_at', 'before', '2026-03-10T11:30:00Z', true],
    ['trigger.occurred_at', 'after', '2026-03-10T11:30:00Z', false],
    ['trigger.occurred_at', 'before', { ago: 'PT30M' }, true],
    ['trigger.occurred_at', 'before', { ago: 'PT2H' }, false],
    ['trigger.occurred_at', 'after', { ago: 'P1D' }, true],
    ['trigger.occurred_at', 'before', { from_now: 'PT1H' }, true],
    ['trigger.message_text', 'before', { ago: 'P1D' }, false], // not a date
  ];
  it.each(rows)('%s %s %j → %s', (field, operator, value, expected) => {
    expect(check(field, operator, value)).toBe(expected);
  });

  it('ANDs the list and ORs any-groups: 1 AND (2 OR 3)', () => {
    const f1: FilterNode = { field: 'trigger.is_first_message', operator: 'eq', value: true };
    const yes: FilterNode = { field: 'trigger.contact_id', operator: 'eq', value: 42 };
    const no: FilterNode = { field: 'trigger.contact_id', operator: 'eq', value: 1 };
    expect(evaluate(ctx, [f1, { any: [no, yes] }])).toBe(true);
    expect(evaluate(ctx, [f1, { any: [no, no] }])).toBe(false);
    expect(evaluate(ctx, [{ all: [f1, yes] }, { any: [{ all: [no] }, yes] }])).toBe(true);
    expect(evaluate(ctx, [])).toBe(true);
  });

  it('compiles once and answers for many contexts', () => {
    const holds = compileFilters([{ field: 'trigger.message_text', operator: 'contains', value: 'precio' }], { caseInsensitive: (f) => CI.has(f) });
    expect(holds({ trigger: { message_text: '¿Precio?' } })).toBe(true);
    expect(holds({ trigger: { message_text: 'hola' } })).toBe(false);
    expect(holds({})).toBe(false);
    expect(holds(null)).toBe(false);
  });
});

/**
 * The operator × type matrix: for each type of the registry, the values a context holds for a field of
 * that type, and for each operator the filters that hold and that do not. Every cell also answers for a
 * null value and for a missing one (`ABSENT`): the engine sees no type there, so the answer depends on
 * the operator only. A cell that no value of the type can change (a date operator on a number) is listed
 * in `CONSTANT`; the registry must never offer one of those.
 */
const ISO = '2026-03-10T11:00:00Z'; // an hour before NOW
type Case = readonly [actual: unknown, value: unknown, holds: boolean];
const MATRIX: Record<FieldType, Record<FilterOperator, readonly Case[]>> = {
  string: {
    eq: [
      ['chatapp_api', 'chatapp_api', true],
      ['chatapp_api', 'social_dm', false],
      ['', 'chatapp_api', false],
    ],
    neq: [
      ['chatapp_api', 'social_dm', true],
      ['chatapp_api', 'chatapp_api', false],
    ],
    contains: [
      ['Quiero el precio', 'precio', true],
      ['Quiero el precio', 'descuento', false],
      ['', 'precio', false],
    ],
    not_contains: [
      ['Quiero el precio', 'descuento', true],
      ['Quiero el precio', 'precio', false],
    ],
    in: [
      ['chatapp_api', ['social_dm', 'chatapp_api'], true],
      ['chatapp_api', ['social_dm'], false],
    ],
    not_in: [
      ['chatapp_api', ['social_dm'], true],
      ['chatapp_api', ['social_dm', 'chatapp_api'], false],
    ],
    is_empty: [
      ['', undefined, true],
      ['precio', undefined, false],
      [' ', undefined, false],
    ],
    is_not_empty: [
      ['precio', undefined, true],
      ['', undefined, false],
    ],
    // Numeric text counts as its number (ERP amounts); other text never compares.
    gt: [
      ['1250.50', 1000, true],
      ['999', 1000, false],
      ['precio', 0, false],
    ],
    gte: [
      ['1000', 1000, true],
      ['999.99', 1000, false],
      ['precio', 0, false],
    ],
    lt: [
      ['5', 10, true],
      ['10', 10, false],
      ['precio', 1e9, false],
    ],
    lte: [
      ['10', 10, true],
      ['11', 10, false],
      ['precio', 1e9, false],
    ],
    before: [
      ['precio', '2030-01-01T00:00:00Z', false],
      ['precio', { from_now: 'P1D' }, false],
    ],
    after: [
      ['precio', '2000-01-01T00:00:00Z', false],
      ['precio', { ago: 'P1D' }, false],
    ],
  },
  number: {
    eq: [
      [42, 42, true],
      [42, 41, false],
      [0, 0, true],
      ['42', 42, true],
    ],
    neq: [
      [42, 41, true],
      [42, 42, false],
      [0, 0, false],
    ],
    contains: [
      [42, 42, false],
      [42, '4', false],
    ],
    not_contains: [
      [42, 42, true],
      [42, '4', true],
    ],
    in: [
      [42, [41, 42], true],
      [42, [1, 2], false],
      [0, [0], true],
    ],
    not_in: [
      [42, [1, 2], true],
      [42, [41, 42], false],
      [0, [0], false],
    ],
    is_empty: [
      [0, undefined, false],
      [42, undefined, false],
    ], // zero is a value
    is_not_empty: [
      [0, undefined, true],
      [42, undefined, true],
    ],
    gt: [
      [3, 2, true],
      [3, 3, false],
      [-1.5, -2, true],
    ],
    gte: [
      [3, 3, true],
      [2, 3, false],
    ],
    lt: [
      [2, 3, true],
      [3, 3, false],
    ],
    lte: [
      [3, 3, true],
      [4, 3, false],
    ],
    before: [
      [0, '2030-01-01T00:00:00Z', false],
      [Date.parse(ISO), { from_now: 'P1D' }, false],
    ], // a number is not an instant
    after: [
      [NOW, '2000-01-01T00:00:00Z', false],
      [NOW, { ago: 'P1D' }, false],
    ],
  },
  boolean: {
    eq: [
      [true, true, true],
      [true, false, false],
      [false, false, true],
      [false, true, false],
    ],
    neq: [
      [true, false, true],
      [false, false, false],
    ],
    contains: [[true, true, false]],
    not_contains: [[true, true, true]],
    in: [
      [true, [true], true],
      [false, [false, true], true],
      [false, [true], false],
    ],
    not_in: [
      [false, [true], true],
      [true, [true], false],
    ],
    is_empty: [
      [false, undefined, false],
      [true, undefined, false],
    ], // false is a value
    is_not_empty: [
      [false, undefined, true],
      [true, undefined, true],
    ],
    gt: [[true, 0, false]], // true is not the number 1
    gte: [[true, 1, false]],
    lt: [[false, 1, false]],
    lte: [[false, 0, false]],
    before: [[false, '2030-01-01T00:00:00Z', false]],
    after: [[true, '2000-01-01T00:00:00Z', false]],
  },
  date: {
    // eq, contains and in compare the text of the instant: the same instant written otherwise is not eq.
    eq: [
      [ISO, ISO, true],
      [ISO, '2026-03-10T11:00:01Z', false],
      [ISO, '2026-03-10T11:00:00.000Z', false],
    ],
    neq: [
      [ISO, '2026-03-10T11:00:01Z', true],
      [ISO, ISO, false],
    ],
    contains: [
      [ISO, '2026-03-10', true],
      [ISO, '2025', false],
    ],
    not_contains: [
      [ISO, '2025', true],
      [ISO, '2026-03-10', false],
    ],
    in: [
      [ISO, [ISO], true],
      [ISO, ['2026-03-11T00:00:00Z'], false],
    ],
    not_in: [
      [ISO, ['2026-03-11T00:00:00Z'], true],
      [ISO, [ISO], false],
    ],
    is_empty: [
      [ISO, undefined, false],
      ['', undefined, true],
    ],
    is_not_empty: [
      [ISO, undefined, true],
      ['', undefined, false],
    ],
    gt: [[ISO, 0, false]], // an instant is not a number
    gte: [[ISO, 0, false]],
    lt: [[ISO, 1e15, false]],
    lte: [[ISO, 1e15, false]],
    before: [
      [ISO, '2026-03-10T11:30:00Z', true],
      [ISO, ISO, false], // not before itself
      [ISO, '2026-03-10T10:00:00Z', false],
      [ISO, { ago: 'PT30M' }, true],
      [ISO, { ago: 'PT2H' }, false],
      [ISO, { from_now: 'PT1H' }, true],
      ['no es fecha', '2030-01-01T00:00:00Z', false],
    ],
    after: [
      [ISO, '2026-03-10T10:00:00Z', true],
      [ISO, ISO, false],
      [ISO, { ago: 'P1D' }, true],
      [ISO, { ago: 'PT30M' }, false],
      [ISO, { from_now: 'PT1M' }, false],
      ['no es fecha', '2000-01-01T00:00:00Z', false],
    ],
  },
  'number[]': {
    eq: [
      [[7, 9], [9, 7], true],
      [[7, 9], [9], false],
      [[7, 9], 7, false],
      [[], [], true],
    ], // equality as sets
    neq: [
      [[7, 9], [9], true],
      [[7, 9], [9, 7], false],
    ],
    contains: [
      [[7, 9], 7, true],
      [[7, 9], 8, false],
      [[], 7, false],
    ],
    not_contains: [
      [[7, 9], 8, true],
      [[7, 9], 7, false],
      [[], 7, true],
    ],
    in: [
      [[7, 9], [1, 9], true],
      [[7, 9], [1, 2], false],
      [[], [1], false],
    ], // any common element
    not_in: [
      [[7, 9], [1, 2], true],
      [[7, 9], [1, 9], false],
      [[], [1], true],
    ],
    is_empty: [
      [[], undefined, true],
      [[7], undefined, false],
    ],
    is_not_empty: [
      [[7], undefined, true],
      [[], undefined, false],
    ],
    gt: [[[7, 9], 1, false]],
    gte: [[[7], 7, false]],
    lt: [[[7], 8, false]],
    lte: [[[7], 7, false]],
    before: [[[7], '2030-01-01T00:00:00Z', false]],
    after: [[[7], '2000-01-01T00:00:00Z', false]],
  },
};

/** What each operator answers for a null or missing value, whatever the field's type. */
const ABSENT: Record<FilterOperator, boolean> = {
  eq: false,
  neq: true,
  contains: false,
  not_contains: true,
  in: false,
  not_in: true,
  is_empty: true,
  is_not_empty: false,
  gt: false,
  gte: false,
  lt: false,
  lte: false,
  before: false,
  after: false,
};

/** Cells no value of the type can change: the engine answers false (or, for the negations, true) for every value. */
const CONSTANT: Partial<Record<FieldType, Partial<Record<FilterOperator, boolean>>>> = {
  string: { before: false, after: false },
  number: { contains: false, not_contains: true, before: false, after: false },
  boolean: { contains: false, not_contains: true, gt: false, gte: false, lt: false, lte: false, before: false, after: false },
  date: { gt: false, gte: false, lt: false, lte: false },
  'number[]': { gt: false, gte: false, lt: false, lte: false, before: false, after: false },
};

const MISSING = Symbol('missing');
const show = (v: unknown) => (v === MISSING ? '(missing)' : JSON.stringify(v));
const FIELD_TYPES = Object.keys(MATRIX) as FieldType[];
const matrixRows = FIELD_TYPES.flatMap((type) =>
  FILTER_OPERATORS.flatMap((operator) => {
    const cell = MATRIX[type][operator];
    const value = cell[0]![1];
    const cases: Case[] = [...cell, [null, value, ABSENT[operator]], [MISSING, value, ABSENT[operator]]];
    return cases.map(([actual, v, holds]) => ({
      type,
      operator,
      actual,
      value: v,
      holds,
      title: `a ${type} field holding ${show(actual)}: ${operator}${v === undefined ? '' : ` ${show(v)}`} ${holds ? 'holds' : 'does not hold'}`,
    }));
  }),
);
const holdsOn = (actual: unknown, operator: FilterOperator, value: unknown) =>
  evaluate({ trigger: actual === MISSING ? {} : { v: actual } }, [{ field: 'trigger.v', operator, ...(value === undefined ? {} : { value }) }], { now });

describe('every operator × every type, null and missing values included', () => {
  for (const { title, actual, operator, value, holds } of matrixRows) {
    it(title, () => {
      expect(holdsOn(actual, operator, value)).toBe(holds);
    });
  }

  it('has a holding and a failing case in every cell the type can change, and a constant answer in the others', () => {
    for (const type of FIELD_TYPES) {
      for (const operator of FILTER_OPERATORS) {
        const answers = matrixRows.filter((r) => r.type === type && r.operator === operator).map((r) => r.holds);
        const constant = CONSTANT[type]?.[operator];
        if (constant === undefined) expect(new Set(answers), `${type} ${operator}`).toEqual(new Set([true, false]));
        else expect(new Set(answers), `${type} ${operator}`).toEqual(new Set([constant]));
      }
    }
  });

  it('offers through the registry only cells that some value of the field’s type can change', () => {
    const offered = Object.values(FIELD_REGISTRY).flatMap((fields) => fields.flatMap((f) => f.operators.map((op) => [f.field, f.type, op] as const)));
    expect(offered.filter(([, type, op]) => CONSTANT[type]?.[op] !== undefined)).toEqual([]);
  });
});

describe('field registry', () => {
  const errorsOf = (event: Parameters<typeof validateFilters>[0]['event'], filters: unknown) => validateFilters({ event }, filters, '/body/filters');

  it('accepts SPEC’s presets and our additions', () => {
    expect(
      errorsOf('message.inbound', [
        { field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' },
        {
          any: [
            { field: 'trigger.message_text', operator: 'contains', value: 'precio' },
            { field: 'trigger.occurred_at', operator: 'after', value: { ago: 'PT1H' } },
          ],
        },
      ]),
    ).toEqual([]);
    expect(
      errorsOf('scheduled', [
        { field: 'run_at_time', operator: 'eq', value: '09:30' },
        { field: 'timezone', operator: 'eq', value: 'America/Guatemala' },
        { field: 'active_days', operator: 'in', value: [1, 2, 3] },
      ]),
    ).toEqual([]);
  });

  it.each([
    ['an unknown field', 'message.inbound', [{ field: 'trigger.nope', operator: 'eq', value: 1 }], '/body/filters/0', 'is not a field of message.inbound'],
    [
      'an operator the field does not allow',
      'message.inbound',
      [{ field: 'trigger.message_text', operator: 'eq', value: 'x' }],
      '/body/filters/0',
      'allows contains, not_contains',
    ],
    ['a value of the wrong type', 'message.inbound', [{ field: 'trigger.is_first_message', operator: 'eq', value: 'yes' }], '/body/filters/0', 'true or false'],
    [
      'a value outside the enumeration',
      'message.inbound',
      [{ field: 'trigger.channel_type_code', operator: 'in', value: ['fax'] }],
      '/body/filters/0',
      'one of chatapp_api',
    ],
    [
      'a filter inside a group',
      'message.inbound',
      [{ any: [{ field: 'trigger.sender_name', operator: 'gt', value: 3 }] }],
      '/body/filters/0/any/0',
      'allows contains',
    ],
    ['an empty group', 'message.inbound', [{ any: [] }], '/body/filters/0', 'non-empty array'],
    [
      'a filter on a manual trigger',
      'manual',
      [{ field: 'trigger.contact_id', operator: 'eq', value: 1 }],
      '/body/filters/0',
      'manual workflows have no filters',
    ],
    ['a time that is not HH:mm', 'scheduled', [{ field: 'run_at_time', operator: 'eq', value: '9am' }], '/body/filters/0', 'HH:mm'],
    ['an unknown time zone', 'scheduled', [{ field: 'timezone', operator: 'eq', value: 'Mars/Olympus' }], '/body/filters/0', 'IANA'],
    ['a day outside 1-7', 'scheduled', [{ field: 'active_days', operator: 'in', value: [0] }], '/body/filters/0', 'one of 1, 2'],
    [
      'a bad relative date',
      'message.inbound',
      [{ field: 'trigger.occurred_at', operator: 'before', value: { ago: 'three days' } }],
      '/body/filters/0',
      'ISO 8601',
    ],
    ['a value on is_empty', 'message.inbound', [{ field: 'trigger.message_text', operator: 'is_empty', value: 'x' }], '/body/filters/0', 'takes no value'],
    ['a missing value', 'message.inbound', [{ field: 'trigger.message_text', operator: 'contains' }], '/body/filters/0', 'needs a value'],
  ] as const)('refuses %s, naming the filter', (_name, event, filters, at, message) => {
    const errors = errorsOf(event, filters);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe(at);
    expect(errors[0]!.message).toContain(message);
  });

  /** A valid value of `def`'s type for `operator` (undefined for is_empty and is_not_empty, which take none). */
  function sampleValue(def: FieldDefinition, operator: FilterOperator): unknown {
    if (operator === 'is_empty' || operator === 'is_not_empty') return undefined;
    if (operator === 'before' || operator === 'after') return { ago: 'P3D' };
    const scalar =
      def.values?.[0] ??
      { run_at_time: '09:30', timezone: 'America/Guatemala' }[def.field] ??
      { string: 'precio', number: 7, boolean: true, date: ISO, 'number[]': 7 }[def.type];
    if (operator === 'in' || operator === 'not_in') return [scalar];
    if (def.type === 'number[]' && operator !== 'contains' && operator !== 'not_contains') return [scalar];
    return scalar;
  }
  const stepKeys = new Set(['greet']);
  const everyField = TRIGGER_EVENTS.flatMap((event) =>
    [...FIELD_REGISTRY[event], fieldDefinition({ event, stepKeys }, 'workflow.step_visits.greet')!].map((def) => ({ event, def })),
  );
  const filterOf = (def: FieldDefinition, operator: FilterOperator) => {
    const value = sampleValue(def, operator);
    return { field: def.field, operator, ...(value === undefined ? {} : { value }) };
  };

  it('allows, by type, exactly these operators on some field (dates only before and after, booleans only eq)', () => {
    const byType = new Map<FieldType, Set<FilterOperator>>();
    for (const { def } of everyField) for (const op of def.operators) byType.set(def.type, (byType.get(def.type) ?? new Set()).add(op));
    const sorted = (type: FieldType) => FILTER_OPERATORS.filter((op) => byType.get(type)?.has(op));
    expect(sorted('string')).toEqual(['eq', 'neq', 'contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty']);
    expect(sorted('number')).toEqual(['eq', 'neq', 'in', 'not_in', 'is_empty', 'is_not_empty', 'gt', 'gte', 'lt', 'lte']);
    expect(sorted('boolean')).toEqual(['eq']);
    expect(sorted('date')).toEqual(['before', 'after']);
    expect(sorted('number[]')).toEqual(['contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty']);
  });

  it('accepts every operator a field allows, with a value of the field’s type, in triggers and in conditions', () => {
    for (const { event, def } of everyField) {
      for (const op of def.operators) {
        const filters = [filterOf(def, op)];
        // Workflow fields and the fields a registry marks conditions-only are refused as trigger filters.
        if (!def.field.startsWith('workflow.') && def.conditionsOnly !== true)
          expect(validateFilters({ event }, filters, '/body/filters'), `${event} ${def.field} ${op}`).toEqual([]);
        expect(validateFilters({ event, stepKeys }, filters, '/body/steps/0/filters'), `condition ${event} ${def.field} ${op}`).toEqual([]);
      }
    }
  });

  it('refuses every operator a field does not allow, on every field of every event, naming the filter', () => {
    let refused = 0;
    for (const { event, def } of everyField) {
      for (const op of FILTER_OPERATORS.filter((o) => !def.operators.includes(o))) {
        const errors = validateFilters({ event, stepKeys }, [{ all: [filterOf(def, op)] }], '/body/steps/0/filters');
        expect(errors, `${event} ${def.field} ${op}`).toEqual([
          { field: '/body/steps/0/filters/0/all/0', message: `${def.field} allows ${def.operators.join(', ')}, not ${op}` },
        ]);
        refused++;
      }
    }
    // Every event's fields were walked (a guard against an empty loop).
    expect(refused).toBeGreaterThan(FILTER_OPERATORS.length * TRIGGER_EVENTS.length);
  });

  it.each([
    ['a number on a text field', 'message.inbound', { field: 'trigger.sender_name', operator: 'eq', value: 5 }, 'non-empty text'],
    ['empty text', 'message.inbound', { field: 'trigger.message_text', operator: 'contains', value: '' }, 'non-empty text'],
    ['null on a text field', 'message.inbound', { field: 'trigger.sender_name', operator: 'eq', value: null }, 'non-empty text'],
    ['numeric text on a number field', 'quote.approved', { field: 'trigger.total', operator: 'gt', value: '1000' }, 'must be a number'],
    ['null on a number field', 'quote.approved', { field: 'trigger.total', operator: 'eq', value: null }, 'must be a number'],
    ['text in a list of numbers', 'message.inbound', { field: 'trigger.contact_id', operator: 'not_in', value: [1, 'dos'] }, 'must be a number'],
    ['an empty list', 'message.inbound', { field: 'trigger.contact_id', operator: 'in', value: [] }, 'non-empty array'],
    ['null on a boolean field', 'message.inbound', { field: 'trigger.is_first_message', operator: 'eq', value: null }, 'true or false'],
    ['an epoch number on a date field', 'message.inbound', { field: 'trigger.occurred_at', operator: 'after', value: 1_760_000_000_000 }, 'ISO 8601'],
    ['text that is not a date', 'message.inbound', { field: 'trigger.occurred_at', operator: 'before', value: 'ayer' }, 'ISO 8601'],
    [
      'text as the element of a number list',
      'message.inbound',
      { field: 'trigger.assigned_employee_ids', operator: 'contains', value: '7' },
      'must be a number',
    ],
    ['a missing value', 'quote.approved', { field: 'trigger.total', operator: 'lte' }, 'needs a value'],
    ['a value on is_not_empty', 'order.created', { field: 'trigger.quote_id', operator: 'is_not_empty', value: 3 }, 'takes no value'],
  ] as const)('refuses %s as a value', (_name, event, filter, message) => {
    const errors = validateFilters({ event }, [filter], '/body/filters');
    expect(errors.map((e) => e.field)).toEqual(['/body/filters/0']);
    expect(errors[0]!.message).toContain(message);
  });

  it('lets conditions read the step visits of existing steps only', () => {
    const scope = { event: 'message.inbound' as const, stepKeys: new Set(['greet']) };
    expect(validateFilters(scope, [{ field: 'workflow.step_visits.greet', operator: 'gte', value: 2 }], '/x')).toEqual([]);
    expect(validateFilters(scope, [{ field: 'workflow.step_visits.other', operator: 'gte', value: 2 }], '/x')[0]!.message).toContain('is not a field');
  });
});

describe('algebra (property tests)', () => {
  // Contexts where every field holds a value of its type, so every operator has an exact complement.
  const arbContext = fc
    .record({
      n: fc.integer({ min: -5, max: 5 }),
      s: fc.constantFrom('', 'a', 'ab', 'b', 'Ab'),
      tags: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
    })
    .map((trigger) => ({ trigger }));
  const arbFilter: fc.Arbitrary<FilterNode> = fc.oneof(
    fc
      .record({
        field: fc.constant('trigger.n'),
        operator: fc.constantFrom<FilterOperator>('eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in'),
        value: fc.integer({ min: -5, max: 5 }),
      })
      .map((f) => (f.operator === 'in' || f.operator === 'not_in' ? { ...f, value: [f.value, f.value + 1] } : f)),
    fc
      .record({
        field: fc.constant('trigger.s'),
        operator: fc.constantFrom<FilterOperator>('eq', 'neq', 'contains', 'not_contains', 'is_empty', 'is_not_empty'),
        value: fc.constantFrom('a', 'b', 'ab'),
      })
      .map((f) => (f.operator === 'is_empty' || f.operator === 'is_not_empty' ? { field: f.field, operator: f.operator } : f)),
    fc
      .record({
        field: fc.constant('trigger.tags'),
        operator: fc.constantFrom<FilterOperator>('contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'),
        value: fc.integer({ min: 0, max: 3 }),
      })
      .map((f) =>
        f.operator === 'in' || f.operator === 'not_in'
          ? { ...f, value: [f.value] }
          : f.operator === 'is_empty' || f.operator === 'is_not_empty'
            ? { field: f.field, operator: f.operator }
            : f,
      ),
  );
  const arbTree: fc.Arbitrary<FilterNode> = fc.letrec<{ node: FilterNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      arbFilter,
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
    ),
  })).node;

  it('negate is the complement (De Morgan over groups, operator complements)', () => {
    fc.assert(
      fc.property(arbContext, arbTree, (c, node) => evaluate(c, [negate(node)]) === !evaluate(c, [node])),
      { numRuns: 2000 },
    );
  });

  it('in / not_in and is_empty / is_not_empty are complements on any value, missing ones included', () => {
    const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.array(fc.integer({ min: 0, max: 3 })));
    fc.assert(
      fc.property(anyValue, fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1 }), (v, list) => {
        const c = { trigger: { v } };
        const inList = evaluate(c, [{ field: 'trigger.v', operator: 'in', value: list }]);
        const notInList = evaluate(c, [{ field: 'trigger.v', operator: 'not_in', value: list }]);
        const empty = evaluate(c, [{ field: 'trigger.v', operator: 'is_empty' }]);
        const notEmpty = evaluate(c, [{ field: 'trigger.v', operator: 'is_not_empty' }]);
        return inList !== notInList && empty !== notEmpty;
      }),
      { numRuns: 2000 },
    );
  });

  it('an any-group holds when one member holds, an all-group when every member holds', () => {
    fc.assert(
      fc.property(arbContext, fc.array(arbFilter, { minLength: 1, maxLength: 4 }), (c, items) => {
        const each = items.map((f) => evaluate(c, [f]));
        return (
          evaluate(c, [{ any: items }]) === each.some(Boolean) &&
          evaluate(c, [{ all: items }]) === each.every(Boolean) &&
          evaluate(c, items) === each.every(Boolean)
        );
      }),
      { numRuns: 1000 },
    );
  });
});
