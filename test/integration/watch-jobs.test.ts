import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { FRESH_MEMORY } from '../../lib/watches/detect/detection.js';
import type { Job } from 'bullmq';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { uniqueName } from '../contracts/backends.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';
import { openWatchStore } from '../support/watch-store.js';
import { openQueue, type OpenedQueue } from '../support/bullmq-queue.js';
import { checkedWatch } from '../support/checked-watch.js';

/** The shared stores of this machine, where watches are BullMQ jobs. */
const ENGINES = [
  { name: 'redis', url: process.env.DOSSIER_TEST_REDIS },
  { name: 'postgres', url: process.env.DOSSIER_TEST_POSTGRES },
];

/** Polls (with short pauses) until `read` gives a value `done` accepts. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const engine of ENGINES) {
  describe(`watch jobs on BullMQ (${engine.name})`, function () {
    let dns: TestDnsServer;
    let receiver: TestReceiver;
    let prefix: string;
    let deliveries: OpenedQueue;
    let checks: OpenedQueue;
    const dossiers: Dossier[] = [];

    before(function () {
      if (!engine.url) this.skip();
    });

    beforeEach(async () => {
      dns = await startDnsServer({
        'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
        'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
      });
      receiver = await startReceiver();
      prefix = uniqueName('jobs');
      deliveries = openQueue(engine.url!, `${prefix}-webhook-deliveries`);
      checks = openQueue(engine.url!, `${prefix}-watch-checks`);
    });

    afterEach(async () => {
      await Promise.all(dossiers.splice(0).map((dossier) => dossier.close()));
      await deliveries.close();
      await checks.close();
      await receiver.close();
      await dns.close();
    });

    /** A process on the shared store: its own Dossier, running its share of the jobs. */
    async function process(): Promise<Dossier> {
      const dossier = createDossier({
        store: engine.url!,
        cache: 'memory://',
        dnsServers: [dns.address],
        allowPrivateTargets: true,
        jobQueuePrefix: prefix,
        lookupTimeoutMs: 2000,
      });
      dossiers.push(dossier);
      await dossier.startWorkers();
      return dossier;
    }

    /** Creates a watch on `dossier` and waits for its first check (the baseline). */
    const watched = (dossier: Dossier): Promise<string> => checkedWatch(dossier, `http://hooks.test:${receiver.port}/in`);

    /** Makes a delivery's next attempt due now, as if its pause had passed (BullMQ's is moved with `promote`). */
    async function fallDue(deliveryId: string): Promise<void> {
      const opened = openWatchStore(engine.url!);
      try {
        await opened.fallDue(deliveryId);
      } finally {
        await opened.close();
      }
    }

    /** The delivery job of `id`, once it is in one of `states`. */
    async function jobIn(id: string, ...states: string[]): Promise<Job> {
      return until(
        async () => {
          const job = await deliveries.queue.getJob(id);
          return { job, state: job === undefined ? 'missing' : await job.getState() };
        },
        ({ state }) => states.includes(state),
      ).then(({ job }) => job!);
    }

    it('checks a watch from one job scheduler, and delivers each event once although two processes work', async () => {
      const [a, b] = [await process(), await process()];
      const heard: WatchEvent[] = [];
      for (const dossier of [a, b]) dossier.watches.on('*', (event) => heard.push(event));
      const id = await watched(a);
      const schedulers = await checks.queue.getJobSchedulers();
      expect(schedulers.map((scheduler) => scheduler.key)).to.deep.equal([id]);
      expect(schedulers[0]!.every).to.equal(900_000);
      // One next check is waiting, a whole interval away, whichever process asked.
      const delayed = await checks.queue.getDelayed();
      expect(delayed).to.have.length(1);
      expect(delayed[0]!.delay).to.be.greaterThan(890_000);

      dns.zone['example.test']!.A = [{ address: '192.0.2.7', ttl: 60 }];
      await b.watches.check(id, { owner: 'acct' });
      const [delivery] = await until(
        () => a.watches.deliveries(id, { owner: 'acct' }),
        (list) => list[0]?.status === 'delivered',
      );
      // Once its job is over, one attempt was made, by one of the two processes.
      await jobIn(delivery!.id, 'completed');
      expect(delivery!.attempts).to.equal(1);
      expect(receiver.received).to.have.length(1);
      expect(receiver.received[0]!.headers['webhook-id']).to.equal(delivery!.id);
      expect(heard.map((event) => event.type)).to.deep.equal(['dns.changed']);
    });

    it('retries at the pauses the core chose, the job waiting among the delayed ones, without waiting them out', async () => {
      const a = await process();
      const id = await watched(a);
      receiver.answer = { status: 500 };
      dns.zone['example.test']!.A = [];
      await a.watches.check(id, { owner: 'acct' });
      const [pending] = await until(
        () => a.watches.deliveries(id, { owner: 'acct' }),
        (list) => list[0]?.attempts === 1 && list[0].responseStatus !== null,
      );
      expect(pending).to.include({ status: 'pending', responseStatus: 500 });
      // Delayed, not waiting: BullMQ holds the job for the pause the core returned (a backoff of 0 would
      // put it back in the queue at once). The job's delay field does not always hold the pause on the
      // PostgreSQL backend (a run read 0 there), so the pause is read from the delivery's next attempt.
      const waiting = await jobIn(pending!.id, 'delayed');
      expect(Date.parse(pending!.nextAttemptAt!) - Date.now()).to.be.within(0, 30_000);
      receiver.answer = { status: 202 };
      await fallDue(pending!.id);
      await waiting.promote();
      const [done] = await until(
        () => a.watches.deliveries(id, { owner: 'acct' }),
        (list) => list[0]?.status === 'delivered',
      );
      expect(done).to.include({ attempts: 2, responseStatus: 202, nextAttemptAt: null });
      expect(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])).size).to.equal(1);
    });

    it('makes a delivery that fell due while every process was down when one starts', async () => {
      const a = await process();
      const id = await watched(a);
      receiver.answer = { status: 500 };
      dns.zone['example.test']!.A = [];
      await a.watches.check(id, { owner: 'acct' });
      const [pending] = await until(
        () => a.watches.deliveries(id, { owner: 'acct' }),
        (list) => list[0]?.attempts === 1 && list[0].responseStatus !== null,
      );
      const waiting = await jobIn(pending!.id, 'delayed');
      await a.close();
      // Its retry falls due while no process runs.
      await fallDue(pending!.id);
      await waiting.promote();
      receiver.answer = { status: 200 };
      const c = await process();
      const [done] = await until(
        () => c.watches.deliveries(id, { owner: 'acct' }),
        (list) => list[0]?.status === 'delivered',
      );
      expect(done!.attempts).to.equal(2);
    });

    it('lets the attempt it holds finish when it stops', async () => {
      const a = await process();
      const id = await watched(a);
      let release!: () => void;
      receiver.answer = { status: 204, hold: new Promise<void>((resolve) => (release = resolve)) };
      dns.zone['example.test']!.A = [];
      await a.watches.check(id, { owner: 'acct' });
      await receiver.waitForArrivals(1);
      let closed = false;
      const closing = a.close().then(() => (closed = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(closed).to.equal(false);
      release();
      await closing;
      const reader = await process();
      const [delivery] = await reader.watches.deliveries(id, { owner: 'acct' });
      expect(delivery).to.include({ status: 'delivered', attempts: 1 });
    });

    it('schedules, when a process starts, a watch whose creation stopped before its schedule was confirmed', async () => {
      const opened = openWatchStore(engine.url!);
      const id = `wat_${randomBytes(8).toString('hex')}`;
      const now = new Date().toISOString();
      try {
        // As a creating process leaves it when it dies (or its engine and store fail) between the two steps.
        await opened.store.markUnscheduled(id);
        const watch = {
          id,
          type: 'dns',
          domain: 'example.test',
          webhookUrl: null,
          intervalSeconds: 900,
          createdAt: now,
        } as const;
        const rest = { lastCheckedAt: null, nextCheckAt: now, lastError: null, keyId: 'acct', owner: 'acct' };
        await opened.store.insert({ ...watch, ...rest, secret: 'whsec_c2VjcmV0', memory: FRESH_MEMORY }, 100);
        expect(await checks.queue.getJobSchedulers()).to.deep.equal([]);
        const a = await process();
        await until(
          () => a.watches.get(id, { owner: 'acct' }),
          (current) => current.lastCheckedAt !== null,
        );
        expect((await checks.queue.getJobSchedulers()).map((scheduler) => scheduler.key)).to.deep.equal([id]);
        expect(await opened.store.unscheduled()).to.deep.equal([]);
      } finally {
        await opened.close();
      }
    });

    it('removes the schedule with the watch', async () => {
      const a = await process();
      const id = await watched(a);
      await a.watches.remove(id, { owner: 'acct' });
      expect(await checks.queue.getJobSchedulers()).to.deep.equal([]);
    });
  });
}
