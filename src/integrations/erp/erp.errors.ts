/**
 * Typed failures of the ERP client. Callers branch on `kind`, never on messages:
 * - `unauthorized`: the ERP rejected the credentials (API key, OAuth token or GraphQL JWT);
 * - `unavailable`: network error, timeout or 5xx (after the bounded retries of idempotent reads);
 * - `invalid_response`: the ERP answered something that does not match the contract.
 */
export type ErpErrorKind = 'unauthorized' | 'unavailable' | 'invalid_response';

export class ErpError extends Error {
  constructor(
    readonly kind: ErpErrorKind,
    message: string,
    /** HTTP status of the ERP answer when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ErpError';
  }
}

export function isErpError(err: unknown, kind?: ErpErrorKind): err is ErpError {
  return err instanceof ErpError && (kind === undefined || err.kind === kind);
}
