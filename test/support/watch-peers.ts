import { startDnsServer, type TestDnsServer } from './dns-server.js';
import { startReceiver, type TestReceiver } from './webhook-receiver.js';

/** What a watch test talks to, on loopback. */
export interface WatchPeers {
  /** Answers example.test (the watched zone: 192.0.2.1) and hooks.test (the receiver's name: 127.0.0.1). */
  dns: TestDnsServer;
  receiver: TestReceiver;
  /** The receiver's URL by name, as a watch's webhook_url. */
  hookUrl: string;
  close(): Promise<void>;
}

/** Starts a {@link WatchPeers}. */
export async function startWatchPeers(): Promise<WatchPeers> {
  const dns = await startDnsServer({
    'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
    'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
  });
  const receiver = await startReceiver();
  return {
    dns,
    receiver,
    hookUrl: `http://hooks.test:${receiver.port}/in`,
    async close() {
      await receiver.close();
      await dns.close();
    },
  };
}
