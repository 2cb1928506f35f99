/**
 * Issue 33, HTTP: no connection is held forever (raw sockets against a listening server), one address
 * cannot take every connection, security headers on the API and the docs (whose page still loads under
 * its CSP), and CORS that never pairs `*` with credentials and lets a browser PATCH and DELETE.
 */
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createTestApp, type TestContext } from '../helpers/test-app.js';
import { listen } from '../helpers/interactions.js';

interface Probe {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the server closed the socket, with the milliseconds since `open`. */
  closed: Promise<number>;
}

/** Opens a raw TCP connection to `port`, from `localAddress` when given. */
async function open(port: number, localAddress?: string): Promise<Probe> {
  const started = Date.now();
  const socket = connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
  let data = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
  return { socket, received: () => data, closed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Fails when `closed` has not resolved within `ms` (the server kept the socket). */
const within = (closed: Promise<number>, ms: number) =>
  Promise.race([closed, sleep(ms).then(() => Promise.reject(new Error(`socket still open after ${ms} ms`)))]);
const portOf = (baseUrl: string) => Number(new URL(baseUrl).port);

describe('connection timeouts (raw sockets)', () => {
  let t: TestContext;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        HTTP_REQUEST_TIMEOUT_MS: '1500',
        HTTP_IDLE_TIMEOUT_MS: '800',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
        HTTP_MAX_REQUESTS_PER_SOCKET: '2',
      },
    });
    port = portOf(await listen(t.app));
  });
  afterAll(async () => {
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('cuts a request whose body stalls after its headers', async () => {
    const probe = await open(port);
    probe.socket.write('POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":');
    const ms = await within(probe.closed, 15_000);
    expect(ms).toBeGreaterThanOrEqual(700);
    expect(probe.received()).not.toContain('HTTP/1.1 200');
  });

  it('cuts a body trickled slowly enough to dodge the idle timeout, at the request deadline', async () => {
    const probe = await open(port);
    probe.socket.write('POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const drip = setInterval(() => probe.socket.writable && probe.socket.write(' '), 200);
    try {
      const ms = await within(probe.closed, 15_000);
      expect(ms).toBeGreaterThanOrEqual(1400);
      expect(probe.received()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
    }
  });

  it('cuts headers trickled slowly, at the headers deadline', async () => {
    const probe = await open(port);
    probe.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => probe.socket.writable && probe.socket.write('X-Slow: 1\r\n'), 200);
    try {
      const ms = await within(probe.closed, 15_000);
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(probe.received()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
    }
  });

  it('bounds keep-alive: requests per socket, then the idle keep-alive socket is closed', async () => {
    const probe = await open(port);
    probe.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await within(probe.closed, 15_000);
    const answers = probe.received().split('HTTP/1.1 200').length - 1;
    expect(answers).toBe(2);
    expect(probe.received().toLowerCase()).toContain('connection: close');

    const idle = await open(port);
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    // Fastify's default keeps an idle keep-alive socket for 72 s.
    await within(idle.closed, 15_000);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200/);
  });
});

describe('connections per client address', () => {
  let t: TestContext;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ env: { HTTP_MAX_CONNECTIONS_PER_ADDRESS: '3' } });
    port = portOf(await listen(t.app));
  });
  afterAll(async () => {
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('refuses connections past the cap from one address while another address is still served', async () => {
    const held = [await open(port), await open(port), await open(port)];
    await sleep(50);
    const excess = await open(port);
    excess.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await within(excess.closed, 15_000);
    expect(excess.received()).toBe('');

    const other = await open(port, '127.0.0.2');
    other.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(other.closed, 15_000);
    expect(other.received()).toMatch(/^HTTP\/1\.1 200/);

    // A freed place is given again.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(50);
    const again = await open(port);
    again.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(again.closed, 15_000);
    expect(again.received()).toMatch(/^HTTP\/1\.1 200/);
    for (const probe of held) probe.socket.destroy();
  });
});

describe('security headers', () => {
  let t: TestContext;
  let baseUrl: string;
  beforeAll(async () => {
    t = await createTestApp();
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('sends helmet headers on API answers, errors included', async () => {
    for (const url of ['/healthz', '/api/nope', '/openapi.json']) {
      const res = await fetch(`${baseUrl}${url}`);
      await res.arrayBuffer();
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), url).toBe('DENY');
      expect(res.headers.get('referrer-policy'), url).toBe('no-referrer');
      expect(res.headers.get('content-security-policy'), url).toContain("frame-ancestors 'none'");
    }
  });

  it('serves /docs under a CSP that allows every script and style the page uses', async () => {
    const page = await fetch(`${baseUrl}/docs/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    const directive = (name: string) => (csp.split(';').find((d) => d.trim().startsWith(`${name} `)) ?? '').trim().split(/\s+/).slice(1);
    const scriptSrc = directive('script-src');
    const styleSrc = directive('style-src');
    expect(scriptSrc).toContain("'self'");
    expect(directive('connect-src')).toContain("'self'");

    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, inline] of scripts) {
      const src = /src="([^"]+)"/.exec(attrs!)?.[1];
      if (src === undefined) {
        // An inline script runs only if its hash is allowed.
        expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(inline!).digest('base64')}'`);
        continue;
      }
      const url = new URL(src, `${baseUrl}/docs/`);
      expect(url.origin, src).toBe(baseUrl);
      const res = await fetch(url);
      expect(res.status, src).toBe(200);
      expect(res.headers.get('content-type'), src).toMatch(/javascript/);
      await res.arrayBuffer();
    }
    for (const [, inline] of html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)) {
      expect(styleSrc).toContain(`'sha256-${createHash('sha256').update(inline!).digest('base64')}'`);
    }
    for (const [, href] of html.matchAll(/<link[^>]*href="([^"]+)"/g)) {
      const url = new URL(href!, `${baseUrl}/docs/`);
      expect(url.origin, href).toBe(baseUrl);
      const res = await fetch(url);
      expect(res.status, href).toBe(200);
      await res.arrayBuffer();
    }
    // The initializer fetches the document from the same origin (connect-src 'self').
    const json = await fetch(`${baseUrl}/docs/json`);
    expect(json.status).toBe(200);
    expect(((await json.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });
});

describe('CORS', () => {
  let listed: TestContext;
  let wildcard: TestContext;
  beforeAll(async () => {
    listed = await createTestApp({ env: { CORS_ORIGINS: 'https://app.example.com' } });
    wildcard = await createTestApp({ env: { CORS_ORIGINS: '*' } });
  });
  afterAll(async () => {
    await listed.close();
    await wildcard.close();
  });

  it('lets a listed origin preflight PATCH and DELETE, with credentials', async () => {
    for (const method of ['PATCH', 'DELETE', 'PUT']) {
      const res = await listed.app.inject({
        method: 'OPTIONS',
        url: '/api/contacts/1',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(String(res.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(expect.arrayContaining([method]));
    }
  });

  it('never answers the null origin, nor an unlisted one', async () => {
    for (const origin of ['null', 'https://evil.example.com', 'https://app.example.com.evil.example']) {
      const res = await listed.app.inject({ method: 'OPTIONS', url: '/api/contacts/1', headers: { origin, 'access-control-request-method': 'DELETE' } });
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(res.headers['access-control-allow-credentials'], origin).toBeUndefined();
    }
  });

  it('with CORS_ORIGINS=* answers * without credentials, never echoing the origin', async () => {
    for (const origin of ['https://anyone.example', 'null']) {
      const res = await wildcard.app.inject({ method: 'OPTIONS', url: '/api/contacts/1', headers: { origin, 'access-control-request-method': 'PATCH' } });
      expect(res.headers['access-control-allow-origin'], origin).toBe('*');
      expect(res.headers['access-control-allow-credentials'], origin).toBeUndefined();
      expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
    }
  });

  it('refuses null and non-origins in CORS_ORIGINS at startup', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com,null' })).toThrow(/CORS_ORIGINS: "null" is never allowed/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(/is not an origin/);
  });
});
