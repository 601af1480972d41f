import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link TestReceiver} got. */
export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP server on loopback that takes webhooks, for tests. */
export interface TestReceiver {
  port: number;
  /** Every request, in order. */
  received: ReceivedHook[];
  /**
   * How it answers the next requests: a status, and optionally headers, a body, and a promise it waits
   * for before answering (a slow receiver). @default 204
   */
  answer: {
    status: number;
    headers?: Record<string, string>;
    body?: string | Buffer;
    hold?: Promise<void>;
    endless?: boolean;
    /** Sends its status at once, then its body a byte every this many ms, without end (a trickle). */
    trickleMs?: number;
  };
  /** Bytes an `endless` answer has written so far. */
  endlessBytes: number;
  /** Resolves once `count` requests have begun to come in (their bodies read), answered or not. */
  waitForArrivals(count: number): Promise<void>;
  /** Resolves once `count` requests have come in. */
  waitFor(count: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

/** Starts a {@link TestReceiver} on 127.0.0.1 and a free port. */
export async function startReceiver(): Promise<TestReceiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const arrivalWaiters: { count: number; resolve: () => void }[] = [];
  let arrivals = 0;
  const receiver: Omit<TestReceiver, 'port'> & { port: number } = {
    port: 0,
    received: [],
    answer: { status: 204 },
    endlessBytes: 0,
    waitFor(count) {
      if (receiver.received.length >= count) return Promise.resolve(receiver.received);
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(receiver.received) }));
    },
    waitForArrivals(count) {
      if (arrivals >= count) return Promise.resolve();
      return new Promise((resolve) => arrivalWaiters.push({ count, resolve }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      arrivals += 1;
      for (const waiter of arrivalWaiters.filter((w) => arrivals >= w.count)) {
        arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const { status, headers = {}, body, hold, endless, trickleMs } = receiver.answer;
      await hold;
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, headers);
      if (trickleMs !== undefined) {
        res.flushHeaders();
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), trickleMs);
        res.once('close', () => clearInterval(drip));
      } else if (endless) {
        // As fast as the client reads, until it hangs up.
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const write = (): void => {
          while (!res.destroyed && res.write(chunk)) receiver.endlessBytes += chunk.length;
          if (!res.destroyed) res.once('drain', write);
        };
        write();
      } else res.end(body);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}
