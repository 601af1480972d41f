import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import type { Delivery } from '../../lib/ports/watches.js';
import type { TestDnsServer } from '../support/dns-server.js';
import type { TestReceiver } from '../support/webhook-receiver.js';
import { startWatchPeers, type WatchPeers } from '../support/watch-peers.js';
import type { WatchEngineCase } from '../support/watch-engines.js';
import { openWatchStore } from '../support/watch-store.js';
import { withQueue } from '../support/bullmq-queue.js';
import { checkedWatch } from '../support/checked-watch.js';

const WORKER = fileURLToPath(new URL('../support/watch-worker.js', import.meta.url));

/** Polls `read` every 50 ms until `done` accepts what it gives, for at most `patienceMs`. */
async function within<T>(patienceMs: number, what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const giveUpAt = performance.now() + patienceMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > giveUpAt) throw new Error(`waited ${patienceMs / 1000} s, but not until ${what}`);
    await sleep(50);
  }
}

/** Promotes the delivery's job out of BullMQ's delayed ones, when the engine is BullMQ (its pause is then over at once). */
async function promote(url: string, prefix: string | undefined, deliveryId: string): Promise<void> {
  if (prefix === undefined) return;
  await withQueue(url, `${prefix}-webhook-deliveries`, async (queue) => {
    await within(
      10_000,
      'the job delayed',
      async () => queue.getJobState(deliveryId),
      (state) => state === 'delayed',
    );
    await (await queue.getJob(deliveryId))!.promote();
  });
}

/**
 * docs/contract.md §11 (new): each attempt is made once, on any engine and with any number of processes, and
 * `attempts` is the number of POSTs made; an attempt whose process died is made again within a minute
 * by another. Real processes, real time, a receiver that hangs.
 */
export function attemptsOnceSuite(engine: WatchEngineCase): void {
  describe(`each attempt made once, with several processes (${engine.name})`, function () {
    this.timeout(120_000);
    let peers: WatchPeers;
    let dns: TestDnsServer;
    let receiver: TestReceiver;
    let store: ReturnType<WatchEngineCase['options']>;
    const dossiers: Dossier[] = [];
    const children: ChildProcess[] = [];

    beforeEach(async function () {
      store = engine.options();
      if (store === undefined) this.skip();
      peers = await startWatchPeers();
      ({ dns, receiver } = peers);
    });

    afterEach(async () => {
      for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all(dossiers.splice(0).map((dossier) => dossier.close()));
      await peers?.close();
      engine.cleanup();
    });

    /** A process of this test on the store: its own Dossier, running its share of the work unless told not to. */
    async function process(workers = true): Promise<Dossier> {
      const dossier = createDossier({
        ...store,
        cache: 'memory://',
        dnsServers: [dns.address],
        allowPrivateTargets: true,
        lookupTimeoutMs: 2000,
        workers: false,
      });
      dossiers.push(dossier);
      if (workers) await dossier.startWorkers();
      return dossier;
    }

    /** A dns watch, checked once (its baseline), whose next check will announce dns.changed. */
    async function watched(dossier: Dossier): Promise<string> {
      const id = await checkedWatch(dossier, peers.hookUrl);
      dns.zone['example.test']!.A = [{ address: '192.0.2.9', ttl: 60 }];
      return id;
    }

    const delivery = (dossier: Dossier, id: string): Promise<Delivery | undefined> =>
      dossier.watches.deliveries(id, { owner: 'acct' }).then(([first]) => first);

    it('makes the attempt once while the receiver hangs for 9 s, and its retry once, attempts counting the POSTs', async () => {
      const [a, b] = [await process(), await process()];
      const id = await watched(a);
      receiver.answer = { status: 500, hold: sleep(9000) };
      await b.watches.check(id, { owner: 'acct' });
      const refused = await within(
        30_000,
        'the first attempt answered',
        () => delivery(a, id),
        (d) => d?.responseStatus === 500,
      );
      expect(refused).to.include({ status: 'pending', attempts: 1 });
      expect(receiver.received).to.have.length(1);

      // Its retry, due at once, is made by one of the two.
      receiver.answer = { status: 200 };
      const opened = openWatchStore(store!.store!);
      try {
        await opened.fallDue(refused!.id);
      } finally {
        await opened.close();
      }
      await promote(store!.store!, store!.jobQueuePrefix, refused!.id);
      const done = await within(
        30_000,
        'delivered',
        () => delivery(b, id),
        (d) => d?.status === 'delivered',
      );
      expect(done).to.include({ attempts: 2, responseStatus: 200 });
      expect(receiver.received).to.have.length(2);
      expect(new Set(receiver.received.map((hook) => hook.headers['webhook-id']))).to.deep.equal(new Set([refused!.id]));
    });

    it('makes an attempt whose process died mid-way again, within a minute, in another process', async () => {
      const here = await process(false);
      const child = spawn(globalThis.process.execPath, [WORKER], {
        env: {
          PATH: globalThis.process.env.PATH,
          DOSSIER_STORE: store!.store!,
          DOSSIER_DNS_SERVERS: dns.address,
          DOSSIER_ALLOW_PRIVATE_TARGETS: 'true',
          ...(store!.jobQueuePrefix === undefined ? {} : { WATCH_WORKER_PREFIX: store!.jobQueuePrefix }),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      let said = '';
      child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
      await within(
        20_000,
        'the worker ready',
        async () => said,
        (out) => out.includes('ready'),
      );
      const id = await watched(here);
      receiver.answer = { status: 204, hold: new Promise(() => {}) };
      await here.watches.check(id, { owner: 'acct' });
      await receiver.waitForArrivals(1);
      receiver.answer = { status: 204 };
      child.kill('SIGKILL');
      await once(child, 'exit');
      await here.startWorkers();
      const done = await within(
        60_000,
        'attempted again within a minute',
        () => delivery(here, id),
        (d) => d?.status === 'delivered',
      );
      // The attempt that died was counted when it began: attempts are the POSTs made, the one that
      // never got its answer and the one answered.
      expect(done).to.include({ attempts: 2, responseStatus: 204 });
      await receiver.waitForArrivals(2);
      expect(receiver.received).to.have.length(1);
    });
  });
}
