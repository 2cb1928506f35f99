/**
 * A customer's webhook receiver on 127.0.0.1 over HTTPS (self-signed; `caFile` is the certificate to trust):
 * it records every call, raw body included, and answers as the test says per path: a status, a hang, a
 * 5 MB body or a redirect.
 */
import https from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the receiver does with the next call on a path: answer a status, never answer, answer 5 MB, redirect. */
export type Behaviour = number | 'hang' | 'huge' | 'redirect';

export interface WebhookReceiver {
  url: string;
  caFile: string;
  calls: ReceivedWebhook[];
  /** Behaviours for the next calls on `path`, in order; after the last, 200. */
  script(path: string, ...behaviours: Behaviour[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const caFile = join(mkdtempSync(join(tmpdir(), 'webhooks-ca-')), 'ca.pem');
  writeFileSync(caFile, pems.cert);
  const calls: ReceivedWebhook[] = [];
  const scripts = new Map<string, Behaviour[]>();
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      calls.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const next = scripts.get(path)?.shift() ?? 200;
      if (next === 'hang') return;
      if (next === 'redirect') return void res.writeHead(302, { location: `${path}-moved` }).end();
      if (next === 'huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const mb = Buffer.alloc(1024 * 1024, 'x');
        for (let i = 0; i < 5; i++) res.write(mb);
        return void res.end();
      }
      res.writeHead(next, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile,
    calls,
    script: (path, ...behaviours) => void scripts.set(path, behaviours),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
