import { createServer, type AddressInfo } from 'node:net';

/**
 * A loopback TCP port free now (bound, then released), for a program that takes its port from its
 * command line or environment rather than binding port 0 itself.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
