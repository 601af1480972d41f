import { connect } from 'node:net';

/** True when a connection to `port` on loopback is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A loopback port that refuses connections, and keeps refusing them: a privileged one (below 1024)
 * that nothing listens on. A port bound and released would go back to the pool that every server on
 * port 0 draws from, and another test could take it before it is used.
 */
export async function closedPort(): Promise<number> {
  for (let port = 1; port < 1024; port += 1) if (await refused(port)) return port;
  throw new Error('Something listens on every privileged loopback port.');
}
