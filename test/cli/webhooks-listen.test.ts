/**
 * `npm run cli -- webhooks listen` (issue 53): the local receiver prints deliveries signed with its secret as
 * verified (checked against the reference `standardwebhooks` signer), and refuses others with 401.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listenForWebhooks } from '../../src/cli/webhooks-listen.js';

const secret = `whsec_${Buffer.from('a secret of 24 bytes ok!').toString('base64')}`;
const printed: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = await listenForWebhooks({ secret, port: 0, host: '127.0.0.1' }, (line) => void printed.push(line));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('prints deliveries verified with the secret and refuses the rest', async () => {
  const body = JSON.stringify({ type: 'lead.created', version: 1, timestamp: new Date().toISOString(), data: { leadId: 42 } });
  const now = new Date();
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'content-type': 'application/json' };
  const good = await fetch(url, { method: 'POST', body, headers: { ...headers, 'webhook-signature': new Webhook(secret).sign('msg_1', now, body) } });
  expect(good.status).toBe(204);
  expect(printed[0]).toMatch(/^verified msg_1 at /);
  expect(printed[0]).toContain('"leadId": 42');
  const other = `whsec_${Buffer.from('another secret, 24 bytes').toString('base64')}`;
  const bad = await fetch(url, { method: 'POST', body, headers: { ...headers, 'webhook-signature': new Webhook(other).sign('msg_1', now, body) } });
  expect(bad.status).toBe(401);
  expect(printed[1]).toMatch(/^NOT VERIFIED msg_1/);
});
