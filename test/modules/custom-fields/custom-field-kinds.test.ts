import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkValue, textOf } from '../../../src/modules/custom-fields/custom-field-kinds.js';
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

  it('accepts a media value only as { media_id } with a positive 32-bit id, for every media kind', () => {
    for (const kind of ['image', 'video', 'pdf'] as const) {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 2_147_483_647 }), (id) => {
          expect(checkValue(kind, { media_id: id, extra: 1 }, ctx)).toEqual({ ok: true, value: { media_id: id } });
        }),
      );
      for (const bad of [{ media_id: 0 }, { media_id: 1.5 }, { media_id: '3' }, { media_id: 2 ** 31 }, { key: 'media/7/x.jpg' }, 3, null]) {
        expect(checkValue(kind, bad, ctx).ok).toBe(false);
      }
    }
  });

  it('keeps select values to the options and text within 5000 characters', () => {
    expect(checkValue('select', 'a', ctx).ok).toBe(true);
    expect(checkValue('select', 'c', ctx).ok).toBe(false);
    expect(checkValue('text', 'x'.repeat(5001), ctx).ok).toBe(false);
    expect(checkValue('number', Number.NaN, ctx).ok).toBe(false);
    expect(checkValue('boolean', 'true', ctx).ok).toBe(false);
  });

  it('reads each stored value as text a customer can read, and media-valued ones as none', () => {
    const stored = (type: Parameters<typeof checkValue>[0], value: unknown) => {
      const checked = checkValue(type, value, ctx);
      if (!checked.ok) throw new Error(checked.message);
      return textOf(type, checked.value);
    };
    expect(stored('text', 'Zona 10')).toBe('Zona 10');
    expect(stored('number', 1500.5)).toBe('1500.5');
    expect(stored('number', -3)).toBe('-3');
    expect(stored('date', '2025-02-28')).toBe('2025-02-28');
    expect(stored('boolean', true)).toBe('sí');
    expect(stored('boolean', false)).toBe('no');
    expect(stored('select', 'b')).toBe('b');
    // The currency's minor digits: two for quetzales, none for yen.
    expect(stored('currency', { currency: 'GTQ', amount: 1500.5 })).toBe('GTQ 1500.50');
    expect(stored('currency', { currency: 'JPY', amount: 1500 })).toBe('JPY 1500');
    expect(stored('department', { code: '01' })).toBe('Guatemala');
    const [code, m] = [...MUNICIPALITIES].find(([, v]) => v.departmentCode === '09')!;
    expect(stored('municipality', { department_code: '09', code })).toBe(`${m.name}, ${DEPARTMENTS.get('09')}`);
    for (const kind of ['image', 'video', 'pdf'] as const) expect(stored(kind, { media_id: 4 })).toBeNull();
    // A value whose shape is not its kind's (written before a change of rules) has no text either.
    expect(textOf('number', '12')).toBeNull();
    expect(textOf('currency', { currency: 'GTQ' })).toBeNull();
  });
});
