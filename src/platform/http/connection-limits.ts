/**
 * Caps the sockets one client address may hold open on the HTTP server (`HTTP_MAX_CONNECTIONS_PER_ADDRESS`):
 * a socket past the cap is destroyed as it is accepted, before any byte is read, so that one client cannot
 * take every file descriptor while others still connect. Behind a reverse proxy every socket comes from the
 * proxy's address: raise the cap or set it to 0 there and cap per client at the proxy (docs/operations.md
 * "Security"). `HTTP_MAX_CONNECTIONS` (the server's `maxConnections`) bounds the total.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Options of the per-address cap; `maxPerAddress` 0 turns it off. */
export interface ConnectionLimits {
  maxPerAddress: number;
  /** Called once per refused socket (metrics, logs). */
  onRefused?: (address: string) => void;
}

/** Installs the cap on `server`; returns how many sockets each address holds now (for tests and metrics). */
export function limitConnectionsPerAddress(server: Server, limits: ConnectionLimits): () => ReadonlyMap<string, number> {
  const open = new Map<string, number>();
  if (limits.maxPerAddress > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? 'unknown';
      const count = open.get(address) ?? 0;
      if (count >= limits.maxPerAddress) {
        limits.onRefused?.(address);
        socket.destroy();
        return;
      }
      open.set(address, count + 1);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }
  return () => open;
}
