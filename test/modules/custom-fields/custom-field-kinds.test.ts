import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkValue, isEntityMediaKey } from '../../../src/modules/custom-fields/custom-field-kinds.js';
import { DEPARTMENTS, MUNICIPALITIES } from '../../../src/modules/custom-fields/geo.js';

const ctx = { options: ['a', 'b'], entityId: 7 };

describe('custom field value kinds', () => {
  it("holds Guatemala's 22 departments and 340 municipalities, each inside its department", () => {
    expect(DEPARTMENTS.size).toBe(22);
    expect(MUNICIPALITIES.size).toBe(340);
    for (const [code, m] of MUNICIPALITIES) expect(code.slice(0, 2)).toBe(m.departmentCode);
  });

  it('accepts every municipality with its own department and refuses it with any other', () => {
    for (const [code, m] of MUNICIPALITIES) {
      expect(checkValue('municipality', { department_code: m.departmentCode, code }, ctx).ok).toBe(true);
      const other = m.departmentCode === '01' ? '02' : '01';
      expect(checkValue('municipality', { department_code: other, code }, ctx).ok).toBe(false);
    }
  });

  it('accepts ISO 4217 currencies with finite amounts only', () => {
    expect(checkValue('currency', { currency: 'USD', amount: -3 }, ctx)).toEqual({ ok: true, value: { currency: 'USD', amount: -3 } });
    expect(checkValue('currency', { currency: 'usd', amount: 1 }, ctx).ok).toBe(false);
    expect(checkValue('currency', { currency: 'GTQ', amount: '1' }, ctx).ok).toBe(false);
    expect(checkValue('currency', { currency: 'GTQ' }, ctx).ok).toBe(false);
  });

  it('accepts only calendar dates', () => {
    expect(checkValue('date', '2024-02-29', ctx).ok).toBe(true);
    expect(checkValue('date', '2023-02-29', ctx).ok).toBe(false);
    expect(checkValue('date', '2024-1-01', ctx).ok).toBe(false);
  });

  it("accepts a media key only under the caller's entity prefix, for any path", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 10_000 }), (segments, other) => {
        const path = segments.join('/');
        expect(isEntityMediaKey(`media/7/${path}`, 7)).toBe(!segments.includes('..'));
        if (other !== 7) expect(isEntityMediaKey(`media/${other}/${path}`, 7)).toBe(false);
      }),
    );
    expect(isEntityMediaKey('media/7/../8/x.jpg', 7)).toBe(false);
    expect(isEntityMediaKey('media/7/', 7)).toBe(false);
    expect(isEntityMediaKey('/media/7/x', 7)).toBe(false);
  });

  it('keeps select values to the options and text within 5000 characters', () => {
    expect(checkValue('select', 'a', ctx).ok).toBe(true);
    expect(checkValue('select', 'c', ctx).ok).toBe(false);
    expect(checkValue('text', 'x'.repeat(5001), ctx).ok).toBe(false);
    expect(checkValue('number', Number.NaN, ctx).ok).toBe(false);
    expect(checkValue('boolean', 'true', ctx).ok).toBe(false);
  });
});
