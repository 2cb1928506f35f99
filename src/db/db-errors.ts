/** Recognizes PostgreSQL errors through Drizzle's wrapping (the driver error is the `cause`). */

/** True when `err` (or its cause chain) is a unique violation (SQLSTATE 23505), optionally of `constraint`. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  let current: unknown = err;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (e.code === '23505') return constraint === undefined || e.constraint === constraint;
    current = e.cause;
  }
  return false;
}

/** True when `err` (or its cause chain) is a foreign key violation (SQLSTATE 23503): a row still referenced, or a reference to none. */
export function isForeignKeyViolation(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as { code?: unknown; cause?: unknown };
    if (e.code === '23503') return true;
    current = e.cause;
  }
  return false;
}
