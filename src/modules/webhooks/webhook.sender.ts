/**
 * One delivery attempt over HTTPS through the guarded outbound client (platform/http/outbound: private,
 * loopback and reserved addresses refused, literal or resolved; redirects never followed, so a 3xx is a
 * failure). At most `timeoutMs` for the whole exchange, and at most 64 KB of the answer is read (the rest is
 * dropped with the connection): a receiver that hangs or answers megabytes costs a bounded amount.
 */
import { createGuardedFetch, OutboundRefusedError } from '../../platform/http/outbound.js';

/** Bytes of an answer read and kept (the excerpt shown in the delivery log is the first 1 000 characters). */
const MAX_RESPONSE_BYTES = 64 * 1024;
const EXCERPT_CHARS = 1000;

interface AttemptResult {
  /** The answer's status; null when there was none (refused address, network error, timeout). */
  status: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** The address guard refused the URL: retrying cannot help. */
  refused: boolean;
}

export type WebhookSender = (url: string, headers: Record<string, string>, body: string) => Promise<AttemptResult>;

export function createWebhookSender(options: { timeoutMs: number; allowedAddresses: string[]; caFile?: string | undefined }): WebhookSender {
  const guardedFetch = createGuardedFetch({ allowedAddresses: options.allowedAddresses, requireHttps: true, caFile: options.caFile });
  return async (url, headers, body) => {
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    const latency = () => Math.round(performance.now() - started);
    try {
      const payload = Buffer.from(body);
      const res = await guardedFetch(url, {
        method: 'POST',
        signal: controller.signal,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length, 'user-agent': 'crm-backend-webhooks' },
        body: payload,
      });
      const excerpt = await readAtMost(res, MAX_RESPONSE_BYTES);
      return { status: res.status, latencyMs: latency(), responseExcerpt: excerpt.slice(0, EXCERPT_CHARS), error: null, refused: false };
    } catch (err) {
      if (err instanceof OutboundRefusedError) return { status: null, latencyMs: latency(), responseExcerpt: null, error: err.message, refused: true };
      const name = (err as Error).name;
      const error = name === 'AbortError' || name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : networkMessage(err);
      return { status: null, latencyMs: latency(), responseExcerpt: null, error, refused: false };
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The first `limit` bytes of the body as text; the rest is not read (the stream is cancelled). */
async function readAtMost(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function networkMessage(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `the connection failed (${code})` : 'the connection failed';
}
