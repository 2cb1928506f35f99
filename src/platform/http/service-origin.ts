/**
 * The origin of this service for URLs it signs for itself (the embedded store's presigned URLs) when
 * `PUBLIC_BASE_URL` is unset: the address and port the request's socket was accepted on, never the
 * `Host` header, which the client writes (a presigned URL must not point wherever the asker says).
 * Behind a proxy or under a public name, set `PUBLIC_BASE_URL` (docs/operations.md "Security").
 */
import type { FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';

/** `http(s)://<listening address>:<port>` of the socket that carried `request`. */
export function serviceOrigin(request: FastifyRequest): string {
  const socket = request.raw.socket as Partial<TLSSocket> | undefined;
  const protocol = socket?.encrypted === true ? 'https' : 'http';
  let address = socket?.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice('::ffff:'.length);
  const host = address.includes(':') ? `[${address}]` : address;
  const port = socket?.localPort;
  return `${protocol}://${host}${port ? `:${port}` : ''}`;
}
