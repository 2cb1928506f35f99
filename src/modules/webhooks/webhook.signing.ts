/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-signature` is a space-separated list
 * of `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per valid secret; a secret is
 * `whsec_` + base64 of its key bytes (24 random bytes here, as the reference libraries make them).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The `webhook-signature` header value for `body` sent as message `id` at `timestamp` (epoch seconds). */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/** Whether `headers` carry a valid signature of `body` under `secret` (one `v1,` entry matching, constant-time). */
export function verifySignature(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string): boolean {
  const expected = Buffer.from(signatureHeader([secret], headers.id, Number(headers.timestamp), body));
  return headers.signature.split(' ').some((entry) => {
    const given = Buffer.from(entry);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
