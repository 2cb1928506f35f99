/**
 * Typed failures of the communications client (docs/communications-contract.md, "Errors"). Callers
 * branch on `kind`, never on messages:
 * - `rate_limited`: HTTP 429 or a platform throughput code; retry after `retryAfterMs` when given;
 * - `transient`: network error or 5xx; retry with backoff;
 * - `timeout`: no answer within the client's timeout; the platform may have accepted the message, so a
 *   retry must carry the same idempotency key;
 * - `reengagement_required`: the customer's service window is closed (WhatsApp 131047); a template is needed;
 * - `unauthorized`: the API key or the platform token was refused;
 * - `permanent`: any other refusal (invalid recipient, malformed message...); retrying cannot help.
 */
export type CommunicationsErrorKind = 'rate_limited' | 'transient' | 'timeout' | 'reengagement_required' | 'unauthorized' | 'permanent';

export class CommunicationsError extends Error {
  constructor(
    readonly kind: CommunicationsErrorKind,
    message: string,
    readonly details: {
      /** HTTP status of the answer, null without one (network error, timeout). */
      status?: number | null;
      /** The platform's error code (Meta `error.code`), when it gave one. */
      providerCode?: number | string | null;
      /** From `Retry-After`, when the service gave one. */
      retryAfterMs?: number | null;
      /** The error object of the answer, as received. */
      body?: unknown;
    } = {},
  ) {
    super(message);
    this.name = 'CommunicationsError';
  }

  /** Whether sending again later may succeed. */
  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'transient' || this.kind === 'timeout';
  }
}

export function isCommunicationsError(err: unknown, kind?: CommunicationsErrorKind): err is CommunicationsError {
  return err instanceof CommunicationsError && (kind === undefined || err.kind === kind);
}

/** Meta error codes that mean "too many messages now" (Cloud API error reference). */
const RATE_LIMIT_CODES = new Set([4, 80007, 130429, 131048, 131056, 613]);
/** Meta's "more than 24 hours have passed since the customer last replied". */
const REENGAGEMENT_CODES = new Set([131047]);
const UNAUTHORIZED_CODES = new Set([0, 190]);

/** Classifies an HTTP answer that is not a success, from its status and Meta-shaped error body. */
export function classifyFailure(status: number, body: unknown, retryAfter: string | null): CommunicationsError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === 'number' || typeof error?.code === 'string' ? error.code : null;
  const numeric = typeof code === 'number' ? code : code !== null ? Number(code) : NaN;
  const message = typeof error?.message === 'string' ? error.message : `communications service answered ${status}`;
  const retryAfterMs = parseRetryAfter(retryAfter);
  const details = { status, providerCode: code, retryAfterMs, body: error ?? body };
  if (status === 429 || RATE_LIMIT_CODES.has(numeric)) return new CommunicationsError('rate_limited', message, details);
  if (REENGAGEMENT_CODES.has(numeric)) return new CommunicationsError('reengagement_required', message, details);
  if (status === 401 || status === 403 || UNAUTHORIZED_CODES.has(numeric)) return new CommunicationsError('unauthorized', message, details);
  if (status >= 500) return new CommunicationsError('transient', message, details);
  return new CommunicationsError('permanent', message, details);
}

/** `Retry-After` in ms: delta seconds or an HTTP date; null when absent or unreadable. */
function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
