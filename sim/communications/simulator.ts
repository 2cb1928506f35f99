/**
 * The communications service simulator: posts platform-shaped webhook events to the CRM over real HTTP
 * (optionally signed with `X-Hub-Signature-256`), one at a time, in bursts, with duplicates and with
 * statuses out of order. Used by the tests, the benchmark and `npm run demo`.
 */
import { createHmac } from 'node:crypto';
import { whatsAppMessage, whatsAppStatus, randomId, type WhatsAppAccount, type WhatsAppMessageType } from './payloads.js';

export interface SimulatorOptions {
  /** Base URL of the CRM, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  appSecret?: string | undefined;
}

export interface SendResult {
  status: number;
  body: unknown;
  ms: number;
}

export function createCommunicationsSimulator(opts: SimulatorOptions) {
  const url = `${opts.baseUrl}/api/interactions/webhooks/communications`;
  async function send(payload: unknown, query = ''): Promise<SendResult> {
    const raw = JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.appSecret !== undefined) headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', opts.appSecret).update(raw).digest('hex')}`;
    const started = performance.now();
    const res = await fetch(url + query, { method: 'POST', headers, body: raw });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null, ms: performance.now() - started };
  }

  /** Sends `payloads` with at most `concurrency` requests in flight; returns every result in order. */
  async function burst(payloads: unknown[], concurrency = 16): Promise<SendResult[]> {
    const results: SendResult[] = new Array<SendResult>(payloads.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, payloads.length) }, async () => {
        while (next < payloads.length) {
          const i = next++;
          results[i] = await send(payloads[i]);
        }
      }),
    );
    return results;
  }

  /**
   * A conversation scenario for the demo: one message per WhatsApp type from `from`, then statuses of a
   * (simulated) outbound message delivered out of order (read before delivered).
   */
  function everyMessageType(account: WhatsAppAccount, from: string, name = 'Demo Customer'): unknown[] {
    const types: WhatsAppMessageType[] = [
      'text',
      'image',
      'video',
      'audio',
      'document',
      'sticker',
      'location',
      'contacts',
      'reaction',
      'interactive_button',
      'interactive_list',
      'button',
      'order',
      'unsupported',
    ];
    const base = Math.floor(Date.now() / 1000);
    const out: unknown[] = types.map((type, i) => whatsAppMessage(account, { from, name, type, timestamp: base + i }));
    const outbound = randomId();
    out.push(
      whatsAppStatus(account, { messageId: outbound, recipient: from, status: 'sent', timestamp: base + 20 }),
      whatsAppStatus(account, { messageId: outbound, recipient: from, status: 'read', timestamp: base + 22 }),
      whatsAppStatus(account, { messageId: outbound, recipient: from, status: 'delivered', timestamp: base + 21 }),
    );
    return out;
  }

  return { url, send, burst, everyMessageType };
}
export type CommunicationsSimulator = ReturnType<typeof createCommunicationsSimulator>;
