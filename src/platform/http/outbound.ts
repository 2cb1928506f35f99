/**
 * The one guarded HTTP client for calls to addresses that users or operators configure (the
 * communications service and its media, workflow webhook steps, any future integration). It refuses
 * private, loopback, link-local, reserved and metadata addresses, literal or after DNS resolution
 * (IPv4 embedded in IPv6 included: `::ffff:127.0.0.1`, `::7f00:1`, `64:ff9b::a00:1`), unless the address
 * is in the policy's allow-list (IPs or CIDRs: on-premise targets, the simulators on 127.0.0.1). It never
 * follows a redirect (a 3xx is answered as is), so no header (`X-Api-Key`) ever reaches another origin.
 * `requireHttps` refuses plain http. Refusals are `OutboundRefusedError`; their messages name the host
 * but never the address it resolved to (they end up in execution logs users read).
 */
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import tls from 'node:tls';
import { isIP, type LookupFunction } from 'node:net';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';

export interface OutboundPolicy {
  /** IPs or CIDRs reachable although private or loopback. */
  allowedAddresses: readonly string[];
  /** Refuse `http:` URLs (production). */
  requireHttps: boolean;
}

/** A call refused before any byte left: the address or the URL is not allowed. */
export class OutboundRefusedError extends Error {
  readonly code = 'address_not_allowed';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

interface OutboundRequest {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/** Like `fetch` (a WHATWG `Response`), through the guard; never follows redirects. Rejects with `OutboundRefusedError`, `AbortError` or network errors. */
export type GuardedFetch = (url: string, init?: OutboundRequest) => Promise<Response>;

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

function parseAllowList(list: readonly string[]): [Parsed, number][] {
  return list.map((item) =>
    item.includes('/') ? ipaddr.parseCIDR(item) : ((a: Parsed) => [a, a.kind() === 'ipv4' ? 32 : 128] as [Parsed, number])(ipaddr.parse(item)),
  );
}

function allowed(address: Parsed, list: [Parsed, number][]): boolean {
  return list.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), if any. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const tail = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (p.slice(0, 6).every((x) => x === 0)) return tail();
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return tail();
  return undefined;
}

/**
 * Why `address` (an IP literal) may not be reached under `allowedAddresses`; `undefined` when it may.
 * Only globally routable unicast addresses pass, after unwrapping IPv4 carried in IPv6.
 */
function addressProblem(address: string, allowedAddresses: readonly string[] = []): string | undefined {
  let parsed: Parsed;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'is not an IP address';
  }
  const list = parseAllowList(allowedAddresses);
  if (allowed(parsed, list)) return undefined;
  if (parsed.kind() === 'ipv6') {
    const inner = embeddedIPv4(parsed as ipaddr.IPv6);
    if (inner !== undefined) {
      if (allowed(inner, list)) return undefined;
      parsed = inner;
    }
  }
  return parsed.range() === 'unicast' ? undefined : 'is a private, loopback or reserved address';
}

/**
 * What is wrong with an outbound URL before any lookup: not http(s) (https only under `requireHttps`),
 * credentials in it, a local name (`localhost`, `*.local`, `*.internal`) or a literal address refused by
 * `addressProblem`. Names that resolve to such addresses are refused when called.
 */
export function outboundUrlProblem(raw: string, policy: OutboundPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (policy.requireHttps ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:')
    return policy.requireHttps ? 'must use https' : 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host) !== 0) {
    const problem = addressProblem(host, policy.allowedAddresses);
    return problem === undefined ? undefined : 'must not name a private, loopback or reserved address';
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return 'must not name a local host';
  return undefined;
}

/** A `dns.lookup` that fails for any resolved address `addressProblem` refuses; the error names the host only. */
function guardedLookup(allowedAddresses: readonly string[]): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses;
      if (list.some((a) => addressProblem(a.address, allowedAddresses) !== undefined)) {
        return callback(new OutboundRefusedError(`${hostname} resolves to a private, loopback or reserved address`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A `GuardedFetch` under `policy`; `caFile` adds a PEM certificate authority to the default roots (a private CA on premises). */
export function createGuardedFetch(policy: OutboundPolicy & { caFile?: string | undefined }): GuardedFetch {
  const ca = policy.caFile ? [...tls.rootCertificates, readFileSync(policy.caFile, 'utf8')] : undefined;
  // Literal hosts are checked before the request (net skips the lookup for them), names in the lookup,
  // at every new connection, so a name that changes its address later is checked again.
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true, ...(ca ? { ca } : {}) }),
  };
  const lookup = guardedLookup(policy.allowedAddresses);
  return (raw, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const problem = outboundUrlProblem(raw, policy);
      if (problem !== undefined) return reject(new OutboundRefusedError(`the address ${problem}`));
      const url = new URL(raw);
      const protocol = url.protocol as 'http:' | 'https:';
      const request = (protocol === 'https:' ? https : http).request(url, {
        method: init.method ?? 'GET',
        headers: init.headers,
        agent: agents[protocol],
        lookup,
        ...(init.signal ? { signal: init.signal } : {}),
      });
      request.on('response', (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) headers.append(name, v);
          else if (value !== undefined) headers.set(name, value);
        }
        const status = res.statusCode ?? 502;
        const empty = NULL_BODY_STATUSES.has(status) || request.method === 'HEAD';
        if (empty) res.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers }));
      });
      request.on('error', reject);
      request.end(init.body);
    });
}
