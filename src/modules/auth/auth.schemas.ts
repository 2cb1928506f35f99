import { Type, type Static } from 'typebox';
import { Id } from '../../platform/http/ids.js';
import { ErpSessionSnapshot } from '../erp-session/index.js';

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    entity_id: Id,
    erp_access_token: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'OAuth access token of the ERP provider (SPEC "Login flow" step 2); optional' }),
    ),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const ChangeEntityBody = Type.Object({ entity_id: Id }, { additionalProperties: false });
export type ChangeEntityBody = Static<typeof ChangeEntityBody>;

const SessionUser = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  entity_id: Type.Integer(),
  employee_id: Type.Integer(),
  role_id: Type.Union([Type.Integer(), Type.Null()]),
  role_name: Type.Union([Type.String(), Type.Null()]),
  role_source: Type.Union([Type.String(), Type.Null()]),
});
type SessionUser = Static<typeof SessionUser>;

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires (8 hours)' }),
  user: SessionUser,
  erp_session: ErpSessionSnapshot,
});
export type TokenResponse = Static<typeof TokenResponse>;

export const MyEntitiesResponse = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      logo_url: Type.Union([Type.String(), Type.Null()]),
      employee_id: Type.Integer(),
      active: Type.Boolean({ description: 'Whether this is the entity of the calling token' }),
    }),
  ),
});
export type MyEntitiesResponse = Static<typeof MyEntitiesResponse>;
