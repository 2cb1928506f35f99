/**
 * The filter engine and the field registry as pure functions: every operator on every type, dotted
 * paths, groups, the date operators with an injected clock, the registry's refusals, and property tests
 * of the algebra (De Morgan over groups, complements of the negated operators).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilters, evaluate, negate, type FilterNode, type FilterOperator } from '../../../src/modules/workflows/filter-engine.js';
import { validateFilters } from '../../../src/modules/workflows/field-registry.js';

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

describe('every operator on every type', () => {
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

describe('field registry', () => {
  const errorsOf = (event: Parameters<typeof validateFilters>[0]['event'], filters: unknown) => validateFilters({ event }, filters, '/body/filters');

  it('accepts SPEC’s presets and our additions', () => {
    expect(errorsOf('message.inbound', [{ field: 'trigger.assignment_status', operator: 'eq', value: 'unassigned' }, { any: [{ field: 'trigger.message_text', operator: 'contains', value: 'precio' }, { field: 'trigger.occurred_at', operator: 'after', value: { ago: 'PT1H' } }] }])).toEqual([]);
    expect(errorsOf('scheduled', [{ field: 'run_at_time', operator: 'eq', value: '09:30' }, { field: 'timezone', operator: 'eq', value: 'America/Guatemala' }, { field: 'active_days', operator: 'in', value: [1, 2, 3] }])).toEqual([]);
  });

  it.each([
    ['an unknown field', 'message.inbound', [{ field: 'trigger.nope', operator: 'eq', value: 1 }], '/body/filters/0', 'is not a field of message.inbound'],
    ['an operator the field does not allow', 'message.inbound', [{ field: 'trigger.message_text', operator: 'eq', value: 'x' }], '/body/filters/0', 'allows contains, not_contains'],
    ['a value of the wrong type', 'message.inbound', [{ field: 'trigger.is_first_message', operator: 'eq', value: 'yes' }], '/body/filters/0', 'true or false'],
    ['a value outside the enumeration', 'message.inbound', [{ field: 'trigger.channel_type_code', operator: 'in', value: ['fax'] }], '/body/filters/0', 'one of chatapp_api'],
    ['a filter inside a group', 'message.inbound', [{ any: [{ field: 'trigger.sender_name', operator: 'gt', value: 3 }] }], '/body/filters/0/any/0', 'allows contains'],
    ['an empty group', 'message.inbound', [{ any: [] }], '/body/filters/0', 'non-empty array'],
    ['a filter on a manual trigger', 'manual', [{ field: 'trigger.contact_id', operator: 'eq', value: 1 }], '/body/filters/0', 'manual workflows have no filters'],
    ['a time that is not HH:mm', 'scheduled', [{ field: 'run_at_time', operator: 'eq', value: '9am' }], '/body/filters/0', 'HH:mm'],
    ['an unknown time zone', 'scheduled', [{ field: 'timezone', operator: 'eq', value: 'Mars/Olympus' }], '/body/filters/0', 'IANA'],
    ['a day outside 1-7', 'scheduled', [{ field: 'active_days', operator: 'in', value: [0] }], '/body/filters/0', 'one of 1, 2'],
    ['a bad relative date', 'message.inbound', [{ field: 'trigger.occurred_at', operator: 'before', value: { ago: 'three days' } }], '/body/filters/0', 'ISO 8601'],
    ['a value on is_empty', 'message.inbound', [{ field: 'trigger.message_text', operator: 'is_empty', value: 'x' }], '/body/filters/0', 'takes no value'],
    ['a missing value', 'message.inbound', [{ field: 'trigger.message_text', operator: 'contains' }], '/body/filters/0', 'needs a value'],
  ] as const)('refuses %s, naming the filter', (_name, event, filters, at, message) => {
    const errors = errorsOf(event, filters);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toBe(at);
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
  const arbContext = fc.record({ n: fc.integer({ min: -5, max: 5 }), s: fc.constantFrom('', 'a', 'ab', 'b', 'Ab'), tags: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }) }).map((trigger) => ({ trigger }));
  const arbFilter: fc.Arbitrary<FilterNode> = fc.oneof(
    fc.record({ field: fc.constant('trigger.n'), operator: fc.constantFrom<FilterOperator>('eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in'), value: fc.integer({ min: -5, max: 5 }) }).map((f) =>
      f.operator === 'in' || f.operator === 'not_in' ? { ...f, value: [f.value, f.value + 1] } : f,
    ),
    fc.record({ field: fc.constant('trigger.s'), operator: fc.constantFrom<FilterOperator>('eq', 'neq', 'contains', 'not_contains', 'is_empty', 'is_not_empty'), value: fc.constantFrom('a', 'b', 'ab') }).map((f) =>
      f.operator === 'is_empty' || f.operator === 'is_not_empty' ? { field: f.field, operator: f.operator } : f,
    ),
    fc.record({ field: fc.constant('trigger.tags'), operator: fc.constantFrom<FilterOperator>('contains', 'not_contains', 'in', 'not_in', 'is_empty', 'is_not_empty'), value: fc.integer({ min: 0, max: 3 }) }).map((f) =>
      f.operator === 'in' || f.operator === 'not_in' ? { ...f, value: [f.value] } : f.operator === 'is_empty' || f.operator === 'is_not_empty' ? { field: f.field, operator: f.operator } : f,
    ),
  );
  const arbTree: fc.Arbitrary<FilterNode> = fc.letrec<{ node: FilterNode }>((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, arbFilter, fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((any) => ({ any })), fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((all) => ({ all }))),
  })).node;

  it('negate is the complement (De Morgan over groups, operator complements)', () => {
    fc.assert(fc.property(arbContext, arbTree, (c, node) => evaluate(c, [negate(node)]) === !evaluate(c, [node])), { numRuns: 2000 });
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
        return evaluate(c, [{ any: items }]) === each.some(Boolean) && evaluate(c, [{ all: items }]) === each.every(Boolean) && evaluate(c, items) === each.every(Boolean);
      }),
      { numRuns: 1000 },
    );
  });
});
