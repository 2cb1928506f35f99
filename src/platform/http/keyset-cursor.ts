/** Opaque keyset cursors for lists ordered by a number and an id (time in ms, then id): base64url of `<number>.<id>`. */
import { badRequest } from '../errors.js';

export function encodeCursor(key: number, id: number): string {
  return Buffer.from(`${key}.${id}`).toString('base64url');
}

/** Throws 400 `invalid_cursor` when the cursor was not produced by `encodeCursor`. */
export function decodeCursor(cursor: string | undefined): { key: number; id: number } | undefined {
  if (cursor === undefined) return undefined;
  const m = /^(-?\d+(?:\.\d+)?)\.(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw badRequest('invalid_cursor', 'The cursor is not valid');
  return { key: Number(m[1]), id: Number(m[2]) };
}
