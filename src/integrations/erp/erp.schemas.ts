/**
 * The ERP contract's response shapes (docs/erp-contract.md). Every ERP answer is checked against these
 * before use: the ERP is an external system and its answers are never trusted.
 */
import { Type, type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const ErpSelectedEntity = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  logo: Nullable(Type.String()),
});
type ErpSelectedEntity = Static<typeof ErpSelectedEntity>;

export const ErpUserinfo = Type.Object({
  email: Type.String({ minLength: 3 }),
  api_key: Type.String({ minLength: 8 }),
  selected_entity: ErpSelectedEntity,
});
export type ErpUserinfo = Static<typeof ErpUserinfo>;

export const ErpSignIn = Type.Object({ email: Type.String({ minLength: 3 }), api_key: Type.String({ minLength: 8 }) });
export type ErpSignIn = Static<typeof ErpSignIn>;

export const ErpProfile = Type.Object({
  user_id: Type.Integer({ minimum: 1 }),
  email: Type.String({ minLength: 3 }),
  name: Type.String(),
  employee_id: Nullable(Type.Integer({ minimum: 1 })),
  selected_entity: ErpSelectedEntity,
});
export type ErpProfile = Static<typeof ErpProfile>;

export const ErpMembership = Type.Object({
  entity_id: Type.Integer({ minimum: 1 }),
  entity_name: Type.String(),
  employee_id: Nullable(Type.Integer({ minimum: 1 })),
  active: Type.Boolean(),
});
export const ErpMemberships = Type.Object({ data: Type.Array(ErpMembership) });
export type ErpMembership = Static<typeof ErpMembership>;

export const ErpGraphqlToken = Type.Object({
  token: Type.String({ minLength: 10 }),
  expires_at: Type.String({ minLength: 10 }),
});
export type ErpGraphqlToken = Static<typeof ErpGraphqlToken>;

export const GraphqlEnvelope = Type.Object({
  data: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  errors: Type.Optional(Type.Array(Type.Object({ message: Type.String(), extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }))),
});

/** POST /api/v1/orders answer: the ERP's order number and status. */
export const ErpOrderCreated = Type.Object({ number: Type.String({ minLength: 1 }), status: Type.String({ minLength: 1 }) });
export type ErpOrderCreated = Static<typeof ErpOrderCreated>;

/** What the CRM sends to create an ERP order (docs/erp-contract.md). */
export interface ErpOrderRequest {
  external_id: string;
  client_id: string | null;
  currency: string;
  lines: { code: string | null; description: string; quantity: string; unit_price: string; discount_percent: string; tax_percent: string }[];
  total: string;
}
