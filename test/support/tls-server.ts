import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createSecureContext, createServer as createTlsServer } from 'node:tls';

/** A server on 127.0.0.1 and a free port, for tests. */
export interface TestPeer {
  port: number;
  /** How many connections it has accepted. */
  accepted: number;
  /** How many connections are open now. */
  connections(): Promise<number>;
  /** Resolves once no connection is open, or rejects after `timeoutMs`. */
  drained(timeoutMs?: number): Promise<void>;
  /** Closes the server and every connection still open. */
  close(): Promise<void>;
}

/** A key and the certificates sent with it. */
export interface TlsIdentity {
  /** The private key of the leaf, PEM. */
  key: string;
  /** The certificates it sends, leaf first, PEM. */
  chain: string[];
}

/** What {@link startTlsServer} serves. */
export interface TlsServerOptions extends TlsIdentity {
  /** Other identities by the server name (SNI) a client asks for. @default {} */
  byServerName?: Record<string, TlsIdentity>;
}

/** The SNI names a {@link startTlsServer} server was asked for, in order (undefined: no SNI). */
export interface TestTlsPeer extends TestPeer {
  serverNames: (string | undefined)[];
}

/**
 * Starts a TLS server that completes the handshake with the identity of the asked server name (or the
 * default one), then closes the connection.
 */
export async function startTlsServer(options: TlsServerOptions): Promise<TestTlsPeer> {
  const contexts = new Map(
    Object.entries(options.byServerName ?? {}).map(([name, identity]) => [
      name,
      createSecureContext({ key: identity.key, cert: identity.chain.join('\n') }),
    ]),
  );
  const serverNames: (string | undefined)[] = [];
  const server = createTlsServer(
    {
      key: options.key,
      cert: options.chain.join('\n'),
      SNICallback: (name, callback) => {
        serverNames.push(name);
        callback(null, contexts.get(name));
      },
    },
    (socket) => socket.end(),
  );
  server.on('secureConnection', (socket) => {
    if (socket.servername === false || socket.servername === undefined) serverNames.push(undefined);
  });
  // A client that hangs up mid-handshake is no failure of the server.
  server.on('tlsClientError', () => {});
  return Object.assign(await listen(server), { serverNames });
}

/**
 * Starts a plain TCP server that hands every connection to `onConnection`: one that accepts and stays
 * silent, one that answers HTTP, one that never stops talking.
 */
export function startRawServer(onConnection: (socket: Socket) => void = () => {}): Promise<TestPeer> {
  const server = createNetServer((socket) => {
    socket.on('error', () => {});
    onConnection(socket);
    // Read what the client sends, so that its hang-up is seen and the connection closes.
    socket.resume();
  });
  return listen(server);
}

export { closedPort } from './closed-port.js';

async function listen(server: Server): Promise<TestPeer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const connections = (): Promise<number> =>
    new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  return {
    port: (server.address() as AddressInfo).port,
    get accepted() {
      return accepted;
    },
    connections,
    async drained(timeoutMs = 2000) {
      const until = Date.now() + timeoutMs;
      while ((await connections()) > 0) {
        if (Date.now() > until) throw new Error(`${await connections()} connection(s) still open after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
