/**
 * Quote and order totals as pure functions: worked examples of the rounding rule, and fast-check
 * properties — the document is the sum of its lines, every line is gross − discount + tax, rounding
 * happens once per line amount (half away from zero), and amounts of one currency are never read in
 * another's minor units.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentAmounts, lineAmounts, type LineInput } from '../../../src/modules/commerce/quote-totals.js';
import { fromMinor, minorDigits, toMinor } from '../../../src/modules/commerce/money.js';
import { priceLines, toAmountsResponse, toLineResponse } from '../../../src/modules/commerce/document-lines.js';

describe('rounding rule', () => {
  it.each([
    // quantity ×1000, unit price (minor), discount bps, tax bps → gross, discount, tax, total
    [
      [1000, 1250, 0, 1200],
      [1250, 0, 150, 1400],
    ],
    [
      [1500, 999, 0, 0],
      [1499, 0, 0, 1499],
    ], // 1498.5 rounds half away from zero
    [
      [3000, 333, 1000, 1200],
      [999, 100, 108, 1007],
    ], // discount 99.9 → 100; tax of 899 = 107.88 → 108
    [
      [1, 1, 0, 0],
      [0, 0, 0, 0],
    ], // 0.001 of a cent rounds to nothing
    [
      [2500, 2, 5000, 0],
      [5, 3, 0, 2],
    ], // discount 2.5 → 3
  ] as const)('%j → %j', ([quantityMilli, unitPriceMinor, discountBps, taxRateBps], [gross, discount, tax, total]) => {
    const l = lineAmounts({ quantityMilli, unitPriceMinor, discountBps, taxRateBps });
    expect([l.grossMinor, l.discountMinor, l.taxMinor, l.totalMinor]).toEqual([gross, discount, tax, total]);
  });

  it('stays exact where quantity × price exceeds 2^53 before the division', () => {
    const l = lineAmounts({ quantityMilli: 9_000_000_000, unitPriceMinor: 9_000_000_000, discountBps: 0, taxRateBps: 0 });
    expect(l.grossMinor).toBe(81_000_000_000_000_000);
  });
});

describe('properties', () => {
  const line: fc.Arbitrary<LineInput> = fc.record({
    quantityMilli: fc.integer({ min: 1, max: 10_000_000 }),
    unitPriceMinor: fc.integer({ min: 0, max: 100_000_000 }),
    discountBps: fc.integer({ min: 0, max: 10_000 }),
    taxRateBps: fc.integer({ min: 0, max: 5_000 }),
  });

  it('each line is gross − discount + tax, never negative, rounded once per amount', () => {
    fc.assert(
      fc.property(line, (input) => {
        const l = lineAmounts(input);
        const exactGross = (input.quantityMilli * input.unitPriceMinor) / 1000;
        return (
          l.totalMinor === l.grossMinor - l.discountMinor + l.taxMinor &&
          l.netMinor === l.grossMinor - l.discountMinor &&
          [l.grossMinor, l.discountMinor, l.netMinor, l.taxMinor, l.totalMinor].every((v) => Number.isSafeInteger(v) && v >= 0) &&
          Math.abs(l.grossMinor - exactGross) <= 0.5 + 1e-6 &&
          Math.abs(l.discountMinor - (l.grossMinor * input.discountBps) / 10_000) <= 0.5 &&
          Math.abs(l.taxMinor - (l.netMinor * input.taxRateBps) / 10_000) <= 0.5
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('the document is the sum of its lines, and its total is subtotal − discount + tax', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), (inputs) => {
        const lines = inputs.map(lineAmounts);
        const d = documentAmounts(lines);
        const sum = (k: 'grossMinor' | 'discountMinor' | 'taxMinor' | 'totalMinor') => lines.reduce((a, l) => a + l[k], 0);
        return (
          d.subtotalMinor === sum('grossMinor') &&
          d.discountMinor === sum('discountMinor') &&
          d.taxMinor === sum('taxMinor') &&
          d.totalMinor === sum('totalMinor') &&
          d.totalMinor === d.subtotalMinor - d.discountMinor + d.taxMinor
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('amounts round-trip in their own currency and are refused with more digits than it has', () => {
    fc.assert(
      fc.property(fc.constantFrom('GTQ', 'USD', 'JPY', 'KWD', 'EUR'), fc.integer({ min: 0, max: 1e12 }), (currency, minor) => {
        const text = fromMinor(minor, currency);
        const digits = minorDigits(currency)!;
        return (
          toMinor(text, currency) === minor &&
          (digits === 0 ? text.includes('.') === false : text.split('.')[1]!.length === digits) &&
          toMinor(`${text}${digits === 0 ? '.5' : '5'}`, currency) === undefined
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('prices every line of a document in the document currency only', () => {
    expect(priceLines([{ description: 'x', quantity: '1', unit_price: '100' }], 'JPY').amounts.totalMinor).toBe(100);
    expect(priceLines([{ description: 'x', quantity: '1', unit_price: '100' }], 'GTQ').amounts.totalMinor).toBe(10_000);
    expect(() => priceLines([{ description: 'x', quantity: '1', unit_price: '1.5' }], 'JPY')).toThrow(/not valid/);
    expect(() => priceLines([{ description: 'x', quantity: '1', unit_price: '1.005' }], 'GTQ')).toThrow(/not valid/);
  });
});

describe('one currency per document', () => {
  const CURRENCIES = Intl.supportedValuesOf('currency');
  /** A price as a client writes it for a currency with `digits` minor digits, and its value in those minor units. */
  const priceIn = (digits: number) =>
    fc.tuple(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: digits }), fc.nat()).map(([units, decimals, seed]) => {
      const fraction = decimals === 0 ? 0 : seed % 10 ** decimals;
      return {
        text: decimals === 0 ? `${units}` : `${units}.${String(fraction).padStart(decimals, '0')}`,
        minor: units * 10 ** digits + fraction * 10 ** (digits - decimals),
      };
    });
  const documentIn = fc.constantFrom(...CURRENCIES).chain((currency) => {
    const digits = minorDigits(currency)!;
    const line = fc.record({
      price: priceIn(digits),
      quantity: fc.integer({ min: 1, max: 9_999 }),
      discount: fc.integer({ min: 0, max: 100 }),
      tax: fc.integer({ min: 0, max: 30 }),
    });
    return fc.record({ currency: fc.constant(currency), digits: fc.constant(digits), lines: fc.array(line, { minLength: 1, maxLength: 12 }) });
  });

  it('reads every price in the document currency and sums only amounts of that currency', () => {
    fc.assert(
      fc.property(documentIn, ({ currency, digits, lines }) => {
        const priced = priceLines(
          lines.map((l) => ({
            description: 'x',
            quantity: String(l.quantity),
            unit_price: l.price.text,
            discount_percent: String(l.discount),
            tax_percent: String(l.tax),
          })),
          currency,
        );
        const answered = priced.lines.map((l) => toLineResponse(l, currency));
        const document = toAmountsResponse({ currency, ...priced.amounts });
        const decimals = (text: string) => text.split('.')[1]?.length ?? 0;
        return (
          priced.lines.every((l, i) => l.unitPriceMinor === lines[i]!.price.minor) &&
          [
            document.subtotal,
            document.discount,
            document.tax,
            document.total,
            ...answered.flatMap((l) => [l.unit_price, l.gross, l.discount, l.tax, l.total]),
          ].every((text) => decimals(text) === digits) &&
          answered.reduce((sum, l) => sum + toMinor(l.total, currency)!, 0) === toMinor(document.total, currency) &&
          document.total_minor === priced.amounts.totalMinor
        );
      }),
      { numRuns: 500 },
    );
  });

  it('refuses, naming the line, a price with more digits than the document currency has instead of reading it in another currency', () => {
    fc.assert(
      fc.property(documentIn, fc.nat(), fc.integer({ min: 1, max: 9 }), ({ currency, digits, lines }, pick, extra) => {
        const bad = pick % lines.length;
        const body = lines.map((l, i) => ({
          description: 'x',
          quantity: '1',
          unit_price: i === bad ? `${l.price.text.split('.')[0]}.${'0'.repeat(digits)}${extra}` : l.price.text,
        }));
        try {
          priceLines(body, currency);
          return false;
        } catch (error) {
          const errors = (error as { extensions?: { errors?: { field: string }[] } }).extensions?.errors ?? [];
          return errors.map((e) => e.field).join() === `/body/lines/${bad}/unit_price`;
        }
      }),
      { numRuns: 500 },
    );
  });
});
