/**
 * `npm run cli -- webhooks listen --secret whsec_... [--port 4400] [--host 127.0.0.1]`: a receiver for developers
 * integrating locally (issue 53). It prints every delivery it gets, verified with the secret (signature and a
 * timestamp within 5 minutes), and answers 204 (401 when the signature is wrong, so the CRM retries). Plain HTTP:
 * the CRM sends only to https URLs, so put it behind a TLS tunnel or a local TLS proxy.
 */
import http from 'node:http';
import { verifyWebhookSignature } from '../modules/webhooks/index.js';

const TOLERANCE_SECONDS = 300;

export function listenForWebhooks(options: { secret: string; port: number; host: string }, print: (line: string) => void = console.log): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => (typeof req.headers[name] === 'string' ? req.headers[name] : '');
      const id = header('webhook-id');
      const timestamp = header('webhook-timestamp');
      const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= TOLERANCE_SECONDS;
      const valid = fresh && verifyWebhookSignature(options.secret, { id, timestamp, signature: header('webhook-signature') }, body);
      let shown = body;
      try {
        shown = JSON.stringify(JSON.parse(body), null, 2);
      } catch {
        // Not JSON: printed as received.
      }
      print(
        `${valid ? 'verified' : 'NOT VERIFIED'} ${id || '(no webhook-id)'} at ${new Date().toISOString()}${fresh ? '' : ' (timestamp too old or missing)'}\n${shown}\n`,
      );
      res.writeHead(valid ? 204 : 401).end();
    });
  });
  return new Promise((resolve) => server.listen(options.port, options.host, () => resolve(server)));
}
