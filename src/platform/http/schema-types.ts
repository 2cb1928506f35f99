/**
 * Response schema helpers for the hot lists. fast-json-stringify serializes a `anyOf` (TypeBox `Union`)
 * by validating each value against the branches at run time, which dominated the list routes' CPU; a
 * JSON Schema type list (`type: ['string', 'null']`, valid OpenAPI 3.1) or a string `enum` compiles to
 * plain checks and describes the same values.
 */
import { Type, type TSchema, type TUnsafe, type Static } from 'typebox';

/** A string or null. */
export function NullableString(options: Record<string, unknown> = {}): TUnsafe<string | null> {
  return Type.Unsafe<string | null>({ ...options, type: ['string', 'null'] });
}

/** One of `values` (a string enum). */
export function StringEnum<const V extends readonly string[]>(values: V, options: Record<string, unknown> = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ ...options, type: 'string', enum: [...values] });
}

/** An object schema that also admits null. */
export function NullableObject<T extends TSchema>(schema: T, options: Record<string, unknown> = {}): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...(schema as object), ...options, type: ['object', 'null'] });
}
