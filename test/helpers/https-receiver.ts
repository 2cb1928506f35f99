/**
 * A real HTTPS server on 127.0.0.1 with a self-signed certificate, standing in for a customer's webhook
 * endpoint: it records every call and answers what the test sets, or holds calls unanswered. `caFile` is
 * the certificate to trust (WORKFLOWS_WEBHOOK_CA_FILE).
 */
import https from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';

export interface ReceivedCall {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
  body: any;
  /** Whether the caller got an answer (false for a held call). */
  answered: boolean;
}

export interface HttpsReceiver {
  url: string;
  caFile: string;
  calls: ReceivedCall[];
  /** Status answered to the next calls (default 200). */
  answer(status: number): void;
  /** Never answers the next `count` calls: the caller's request stays in flight (until its process dies). */
  hold(count: number): void;
  close(): Promise<void>;
}

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'webhook-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const calls: ReceivedCall[] = [];
  let status = 200;
  let held = 0;
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: ReceivedCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
        answered: held === 0,
      };
      calls.push(call);
      if (held > 0) {
        held--;
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    calls,
    answer: (s) => void (status = s),
    hold: (count) => void (held = count),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
