import { Type, type Static } from 'typebox';

export const Currency = Type.Object({ code: Type.String(), name: Type.String(), symbol: Type.String(), decimals: Type.Integer() });
export const Department = Type.Object({ code: Type.String(), name: Type.String() });
export const Municipality = Type.Object({ code: Type.String(), name: Type.String(), department_code: Type.String() });

export const CurrencyList = Type.Object({ data: Type.Array(Currency) });
export const DepartmentList = Type.Object({ data: Type.Array(Department) });
export const MunicipalityList = Type.Object({ data: Type.Array(Municipality) });
export type CurrencyList = Static<typeof CurrencyList>;
export type DepartmentList = Static<typeof DepartmentList>;
export type MunicipalityList = Static<typeof MunicipalityList>;

export const MunicipalityQuery = Type.Object(
  { department: Type.Optional(Type.String({ pattern: '^[0-9]{2}$', description: 'Department code (e.g. 01); only its municipalities' })) },
  { additionalProperties: false },
);

/** GraphQL `data` shapes validated before caching (the ERP is never trusted). */
export const GqlCurrencies = Type.Object({
  currencies: Type.Array(Type.Object({ code: Type.String({ minLength: 1 }), name: Type.String(), symbol: Type.String(), decimals: Type.Integer({ minimum: 0 }) })),
});
export const GqlDepartments = Type.Object({ departments: Type.Array(Type.Object({ code: Type.String({ minLength: 1 }), name: Type.String() })) });
export const GqlMunicipalities = Type.Object({
  municipalities: Type.Array(Type.Object({ code: Type.String({ minLength: 1 }), name: Type.String(), departmentCode: Type.String({ minLength: 1 }) })),
});
