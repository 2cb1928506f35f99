/** A TCP load balancer on 127.0.0.1 for the process tests: each new connection is piped to the port `pick` chooses. */
import { createConnection as connectTcp, createServer, type Server, type Socket as TcpSocket } from 'node:net';

export interface TcpBalancer {
  url: string;
  /** Cuts every open connection (clients reconnect through the balancer). */
  cutAll(): void;
  close(): Promise<void>;
}

/** `pick` returns the upstream port for a new connection, or undefined to refuse it (no upstream ready). */
export async function startTcpBalancer(pick: () => number | undefined, onClose: () => void = () => undefined): Promise<TcpBalancer> {
  const open = new Set<TcpSocket>();
  const server: Server = createServer((client) => {
    const port = pick();
    if (port === undefined) {
      client.destroy();
      return;
    }
    const target = connectTcp(port, '127.0.0.1');
    for (const s of [client, target]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(target).pipe(client);
    client.on('close', () => target.destroy());
    target.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('balancer not listening');
  const cutAll = () => {
    for (const s of open) s.destroy();
  };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cutAll,
    close: () =>
      new Promise<void>((resolve) => {
        onClose();
        cutAll();
        server.close(() => resolve());
      }),
  };
}
