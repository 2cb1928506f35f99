import { Type, type Static } from 'typebox';
import { pageQuery } from '../../platform/http/pagination.js';

export const EmployeeResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  erp_employee_id: Type.Union([Type.Integer(), Type.Null()]),
  is_active: Type.Boolean(),
});
export type EmployeeResponse = Static<typeof EmployeeResponse>;

export const EmployeeListQuery = Type.Object({
  ...pageQuery(200),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  include_inactive: Type.Optional(Type.Boolean({ default: false })),
});
export type EmployeeListQuery = Static<typeof EmployeeListQuery>;
