/**
 * Shapes shared by quotes and orders: lines as clients send them (decimal strings, checked against the
 * document's currency by the service) and amounts as we answer them (decimal strings and integer minor units).
 */
import { Type, type Static } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { IdOf } from '../../platform/http/ids.js';
import { validationFailed, type FieldError } from '../../platform/errors.js';

const Decimal = (description: string) => Type.String({ pattern: '^\\d{1,13}(\\.\\d{1,6})?$', description });

export const LineInput = Type.Object(
  {
    product_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    description: Type.String({ minLength: 1, maxLength: 1000 }),
    quantity: Decimal('Up to 3 decimals, e.g. "1.5"'),
    unit_price: Decimal('In the document currency, at most its minor digits, e.g. "12.50"'),
    discount_percent: Type.Optional(Decimal('0 to 100, up to 2 decimals')),
    tax_percent: Type.Optional(Decimal('Up to 2 decimals, e.g. "12" for IVA')),
  },
  { additionalProperties: false },
);
export type LineInput = Static<typeof LineInput>;
export const LinesInput = Type.Array(LineInput, { minItems: 1, maxItems: 200 });

const DECIMAL_FIELDS = ['quantity', 'unit_price', 'discount_percent', 'tax_percent'] as const;

/**
 * preValidation of the routes whose body has `lines`: amounts come in one form, the documented decimal
 * string. The validator would turn a JSON number into a string (`coerceTypes`), silently accepting a second
 * form whose binary fractions the document does not promise; a number is 400 `validation_failed` instead.
 */
export async function decimalsAsStrings(request: FastifyRequest): Promise<void> {
  const lines = (request.body as { lines?: unknown } | undefined)?.lines;
  if (!Array.isArray(lines)) return;
  const errors: FieldError[] = [];
  lines.forEach((line: unknown, i) => {
    if (typeof line !== 'object' || line === null) return;
    for (const field of DECIMAL_FIELDS) {
      if (typeof (line as Record<string, unknown>)[field] === 'number') {
        errors.push({ field: `/body/lines/${i}/${field}`, message: 'must be a decimal string, e.g. "1.5", not a JSON number' });
      }
    }
  });
  if (errors.length > 0) throw validationFailed(errors);
}

export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, e.g. GTQ' });
export const SellerField = Type.Optional(IdOf('Seller; another than the caller needs catalog.seller_change'));

export const LineResponse = Type.Object({
  position: Type.Integer(),
  product_code: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  quantity: Type.String(),
  unit_price: Type.String(),
  discount_percent: Type.String(),
  tax_percent: Type.String(),
  gross: Type.String(),
  discount: Type.String(),
  tax: Type.String(),
  total: Type.String(),
  total_minor: Type.Integer(),
});

export const AmountsResponse = {
  currency: Type.String(),
  subtotal: Type.String({ description: 'Sum of line gross amounts' }),
  discount: Type.String(),
  tax: Type.String(),
  total: Type.String(),
  total_minor: Type.Integer({ description: 'Total in minor units of the currency' }),
};
