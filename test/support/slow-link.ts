import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy on loopback whose client-to-server direction is slow. */
export interface SlowLink {
  /** The loopback port to connect to instead of the target's. */
  port: number;
  /** How long each chunk the client sends is held, in milliseconds; may be changed at any time. */
  delayMs: number;
  close(): Promise<void>;
}

/**
 * Forwards every connection to `target`, holding each chunk the client sends for `delayMs` before
 * passing it on (in order; 0 to start with); answers come back at once. A statement sent through it reaches the server
 * late, and so does a cancel on a new connection: what a busy network or server does to both.
 */
export async function startSlowLink(target: { host: string; port: number }): Promise<SlowLink> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    // Equal delays keep the order; a delay lowered meanwhile could overtake what is held, so it waits too.
    let last = 0;
    const later = (step: () => void) => {
      const at = Math.max(performance.now() + link.delayMs, last);
      last = at;
      setTimeout(step, at - performance.now());
    };
    client.on('data', (chunk) => later(() => upstream.write(chunk)));
    client.on('end', () => later(() => upstream.end()));
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const link: SlowLink = {
    port: (server.address() as AddressInfo).port,
    delayMs: 0,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return link;
}
