/**
 * The webhook step's HTTP call: HTTPS only, through `request-filtering-agent`, which refuses to connect
 * to private, loopback, link-local and reserved addresses after DNS resolution (a public name that
 * resolves to 10.0.0.1 is refused too). Addresses in `allowedAddresses` pass (on-premise targets).
 * Redirects are not followed (a redirect could point inside). A step visit sends the same
 * `Idempotency-Key` on every attempt so that the receiver can drop repeats.
 */
import https from 'node:https';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';

export interface WebhookCall {
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
  // `ca` replaces the default roots: keep them and add the extra authority.
  const ca = options.caFile ? [...tls.rootCertificates, readFileSync(options.caFile, 'utf8')] : undefined;
  const agent = new RequestFilteringHttpsAgent({ allowIPAddressList: options.allowedAddresses, keepAlive: true, ...(ca ? { ca } : {}) });
  return (call) =>
    new Promise((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(call.body));
      const req = https.request(
        call.url,
        {
          method: call.method,
          agent,
          timeout: options.timeoutMs,
          headers: { ...call.headers, 'content-type': 'application/json', 'content-length': payload.length, 'idempotency-key': call.idempotencyKey, 'user-agent': 'crm-backend-workflows' },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve({ status });
            const retryable = status === 429 || status >= 500 || status === 408;
            reject(new WebhookError('http_error', `the webhook answered ${status}`, retryable, status));
          });
        },
      );
      req.on('timeout', () => req.destroy(new WebhookError('timeout', `no answer within ${options.timeoutMs} ms`, true)));
      req.on('error', (err) => {
        if (err instanceof WebhookError) return reject(err);
        if (/is not allowed/.test(err.message)) return reject(new WebhookError('address_not_allowed', err.message, false));
        reject(new WebhookError('network_error', err.message, true));
      });
      req.end(payload);
    });
}
