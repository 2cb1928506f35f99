import { Type, type Static } from 'typebox';

const Currency = Type.Object({ code: Type.String(), name: Type.String(), symbol: Type.String(), decimals: Type.Integer() });
const Department = Type.Object({ code: Type.String(), name: Type.String() });
const Municipality = Type.Object({ code: Type.String(), name: Type.String(), department_code: Type.String() });

export const CurrencyList = Type.Object({ data: Type.Array(Currency) });
export const DepartmentList = Type.Object({ data: Type.Array(Department) });
export const MunicipalityList = Type.Object({ data: Type.Array(Municipality) });
export type CurrencyList = Static<typeof CurrencyList>;
export type DepartmentList = Static<typeof DepartmentList>;
export type MunicipalityList = Static<typeof MunicipalityList>;

export const MunicipalityQuery = Type.Object({
  department: Type.Optional(Type.String({ pattern: '^[0-9]{2}$', description: 'Department code (e.g. 01); only its municipalities' })),
});

/** GraphQL `data` shapes validated before caching (the ERP is never trusted). */
export const GqlCurrencies = Type.Object({
  currencies: Type.Array(
    Type.Object({ code: Type.String({ minLength: 1 }), name: Type.String(), symbol: Type.String(), decimals: Type.Integer({ minimum: 0 }) }),
  ),
});
export const GqlDepartments = Type.Object({ departments: Type.Array(Type.Object({ code: Type.String({ minLength: 1 }), name: Type.String() })) });
export const GqlMunicipalities = Type.Object({
  municipalities: Type.Array(Type.Object({ code: Type.String({ minLength: 1 }), name: Type.String(), departmentCode: Type.String({ minLength: 1 }) })),
});

/** A product of the entity's sales catalog (the ERP's `catalogProducts`). Prices are decimal strings per currency. */
export const Product = Type.Object({
  id: Type.String(),
  code: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  unit: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  images: Type.Array(Type.String()),
  stock: Type.Number(),
  prices: Type.Array(Type.Object({ currency: Type.String(), amount: Type.String() })),
});
export type Product = Static<typeof Product>;
export const ProductQuery = Type.Object({
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Words found in the code, name or description (any case and accents)' })),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'Only products priced in this currency' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
});
export type ProductQuery = Static<typeof ProductQuery>;
export const ProductList = Type.Object({
  data: Type.Array(Product),
  pagination: Type.Object({ limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() }),
});
export type ProductList = Static<typeof ProductList>;
export const GqlCatalogProducts = Type.Object({
  catalogProducts: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1 }),
      code: Type.String(),
      name: Type.String(),
      description: Type.Union([Type.String(), Type.Null()]),
      unit: Type.String(),
      category: Type.Union([Type.String(), Type.Null()]),
      images: Type.Array(Type.String()),
      stock: Type.Number(),
      prices: Type.Array(Type.Object({ currencyCode: Type.String({ minLength: 3, maxLength: 3 }), amount: Type.String({ pattern: '^\\d+(\\.\\d+)?$' }) })),
    }),
  ),
});
