/**
 * What request logs may show of a URL: query parameters that carry credentials (`token`, `access_token`,
 * `api_key`, `apikey`, `signature`, `sig`, `hub.verify_token`) have their value replaced by `[redacted]`;
 * headers are redacted by the logger's `redact` paths (app.ts). A JWT sent as `?token=` (Socket.IO
 * handshakes, links pasted by hand) therefore never reaches a log line.
 */
import type { FastifyRequest } from 'fastify';

const SECRET_PARAMS = new Set(['token', 'access_token', 'api_key', 'apikey', 'signature', 'sig', 'hub.verify_token', 'x-amz-signature', 'x-amz-credential']);

/** `url` (path and query) with the values of credential parameters replaced. */
function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' ')).toLowerCase();
      } catch {
        name = rawName.toLowerCase();
      }
      return SECRET_PARAMS.has(name) && eq !== -1 ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/** Fastify's request log serializer with `redactUrl` applied (same fields as Fastify's default). */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
