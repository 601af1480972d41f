import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP port on loopback that forwards every connection to a Unix socket. */
export interface SocketProxy {
  /** The port (port 0 when made: free), held until `close()`. */
  port: number;
  /** Stops taking connections and drops those open. */
  close(): Promise<void>;
}

/**
 * Forwards each connection to the port to `socketPath`, for a test server that listens there: the
 * server can be stopped and started again behind a port the test holds throughout, which another process
 * could take while it is free. While nothing listens on the socket, a connection to the port is closed at
 * once, as a refused one would be.
 */
export async function startSocketProxy(socketPath: string): Promise<SocketProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const proxy = createServer((client) => {
    const upstream = connect(socketPath);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return {
    port: (proxy.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
