/**
 * The one id schema. Every row id is a PostgreSQL `integer` (serial), so an id outside
 * 1..2147483647 names nothing: the route schema answers 400 `validation_failed` naming the field
 * before the value reaches the database (which would otherwise fail with "out of range" as a 500).
 */
import { Type } from 'typebox';

/** Largest value of a PostgreSQL `integer` column. */
export const MAX_ID = 2_147_483_647;

/** An id in a path, query or body (integer 1..2147483647). */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });

/** `Id` with a description for the OpenAPI document. */
export function IdOf(description: string) {
  return Type.Integer({ minimum: 1, maximum: MAX_ID, description });
}

/** Path parameters `{ id }` of a route on one record. */
export const IdParams = Type.Object({ id: Id });
