/**
 * The webhook step's HTTP call: HTTPS only, through the guarded outbound client (platform/http/outbound),
 * which refuses private, loopback, link-local and reserved addresses, literal or after DNS resolution
 * (a public name that resolves to 10.0.0.1 is refused too). Addresses in `allowedAddresses` pass
 * (on-premise targets). Redirects are not followed (a redirect could point inside). A step visit sends
 * the same `Idempotency-Key` on every attempt so that the receiver can drop repeats.
 */
import { createGuardedFetch, OutboundRefusedError } from '../../platform/http/outbound.js';

interface WebhookCall {
  url: string;
  method: 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  body: unknown;
  idempotencyKey: string;
}

/** Why a call failed: `address_not_allowed` and 4xx are permanent; network errors, timeouts, 429 and 5xx may pass on retry. */
export class WebhookError extends Error {
  constructor(
    readonly code: 'address_not_allowed' | 'http_error' | 'network_error' | 'timeout',
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

export type WebhookCaller = (call: WebhookCall) => Promise<{ status: number }>;

export function createWebhookCaller(options: { timeoutMs: number; allowedAddresses: string[]; caFile?: string | undefined }): WebhookCaller {
  const guardedFetch = createGuardedFetch({ allowedAddresses: options.allowedAddresses, requireHttps: true, caFile: options.caFile });
  return async (call) => {
    const payload = Buffer.from(JSON.stringify(call.body));
    let res: Response;
    try {
      res = await guardedFetch(call.url, {
        method: call.method,
        signal: AbortSignal.timeout(options.timeoutMs),
        headers: {
          ...call.headers,
          'content-type': 'application/json',
          'content-length': payload.length,
          'idempotency-key': call.idempotencyKey,
          'user-agent': 'crm-backend-workflows',
        },
        body: payload,
      });
      await res.arrayBuffer();
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw new WebhookError('address_not_allowed', err.message, false);
      const name = (err as Error).name;
      if (name === 'AbortError' || name === 'TimeoutError') throw new WebhookError('timeout', `no answer within ${options.timeoutMs} ms`, true);
      throw new WebhookError('network_error', networkMessage(err), true);
    }
    const status = res.status;
    if (status >= 200 && status < 300) return { status };
    const retryable = status === 429 || status >= 500 || status === 408;
    throw new WebhookError('http_error', `the webhook answered ${status}`, retryable, status);
  };
}

/** A network failure without the address it was connecting to (`connect ECONNREFUSED 10.0.0.5:443` becomes `ECONNREFUSED`). */
function networkMessage(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `the connection failed (${code})` : 'the connection failed';
}
