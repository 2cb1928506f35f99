import { describe, expect, it } from 'vitest';
import { expirationLabel, lineKindOf, todayIn } from '../../../src/modules/invoices/invoice-lines.js';

describe('expiration labels', () => {
  const today = '2025-03-10';
  it.each([
    [null, null],
    ['2025-03-09', 'Expired on 2025-03-09'],
    ['2025-03-10', 'Expires today'],
    ['2025-03-11', 'Expires tomorrow'],
    ['2025-04-09', 'Expires in 30 days'],
    ['2025-04-10', 'Expires on 2025-04-10'],
    ['2025-03-20T00:00:00Z', 'Expires in 10 days'],
    ['not a date', null],
  ])('labels %s as %s', (date, label) => {
    expect(expirationLabel(date, today)).toBe(label);
  });
});

describe('line kinds', () => {
  const p = { id: '1', code: 'c', name: 'n' };
  it('gives bundles precedence, then serials, then lots, else items', () => {
    expect(lineKindOf({ bundle: p, serial: { id: 's', number: 'x' }, lot: null })).toBe('bundle');
    expect(lineKindOf({ bundle: null, serial: { id: 's', number: 'x' }, lot: { id: 'l', name: 'y', expirationDate: null } })).toBe('serial');
    expect(lineKindOf({ bundle: null, serial: null, lot: { id: 'l', name: 'y', expirationDate: null } })).toBe('lot');
    expect(lineKindOf({ bundle: null, serial: null, lot: null })).toBe('item');
  });
});

describe('today in a time zone', () => {
  it('uses the calendar day of the zone', () => {
    expect(todayIn('America/Guatemala', new Date('2025-03-10T03:00:00Z'))).toBe('2025-03-09');
    expect(todayIn('UTC', new Date('2025-03-10T03:00:00Z'))).toBe('2025-03-10');
  });
});
