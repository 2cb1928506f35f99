/**
 * The origin of this service for URLs it signs for itself (the embedded store's presigned URLs) when
 * `PUBLIC_BASE_URL` is unset: the address and port the request's socket was accepted on, never the
 * `Host` header, which the client writes (a presigned URL must not point wherever the asker says).
 * Behind a proxy or under a public name, set `PUBLIC_BASE_URL` (docs/operations.md "Security").
 */
import type { FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** `http(s)://<listening address>:<port>` of the socket that carried `request`. */
export function serviceOrigin(request: FastifyRequest): string {
  return socketOrigin(request.raw.socket);
}

/** `http(s)://<listening address>:<port>` of an accepted connection (`127.0.0.1` when it has none, as under `inject`). */
function socketOrigin(connection: Socket | undefined): string {
  const socket = connection as Partial<TLSSocket> | undefined;
  const protocol = socket?.encrypted === true ? 'https' : 'http';
  let address = socket?.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice('::ffff:'.length);
  const host = address.includes(':') ? `[${address}]` : address;
  const port = socket?.localPort;
  return `${protocol}://${host}${port ? `:${port}` : ''}`;
}

/**
 * The origins of this service's own pages (the website chat's demo page): `PUBLIC_BASE_URL`'s origin when
 * set; else the address the connection was accepted on, and `localhost` for a loopback one. Never from
 * `Host` or `Origin`, which any client outside a browser writes as it likes.
 */
export function ownOrigins(publicBaseUrl: string | undefined, connection: Socket | undefined): string[] {
  if (publicBaseUrl !== undefined) return [new URL(publicBaseUrl).origin];
  const origin = socketOrigin(connection);
  const url = new URL(origin);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  return loopback ? [origin, `${url.protocol}//localhost${url.port ? `:${url.port}` : ''}`] : [origin];
}
