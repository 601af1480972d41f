import { expect } from 'chai';
import type { Queue } from 'bullmq';
import { createDossier } from '../../lib/dossier.js';
import type { TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';
import { until } from '../support/until.js';
import type { TestReceiver } from '../support/webhook-receiver.js';
import { startWatchPeers, type WatchPeers } from '../support/watch-peers.js';
import { watchEngineCases } from '../support/watch-engines.js';
import { openWatchStore, type OpenedWatchStore } from '../support/watch-store.js';
import { withQueue } from '../support/bullmq-queue.js';
import { countWork, type WorkCounts } from '../support/work-counts.js';

type Json = Record<string, unknown>;

const TOKEN = 'watch-admin-token-0123456789abcdefghij';

eachAdapter(() => {
  // docs/contract.md §11 (new): a watch lives with the key that created it. Administrators see a key's watches
  // and remove one; a revoked key's watches are gone by the time the revoke answers; an expired key's
  // are paused, and resume when its expiry moves later.
  for (const engine of watchEngineCases()) {
    describe(`a key's watches, for administrators and at its revoke and expiry (${engine.name})`, function () {
      this.timeout(30_000);
      let peers: WatchPeers;
      let dns: TestDnsServer;
      let receiver: TestReceiver;
      let server: TestServer;
      let store: ReturnType<typeof engine.options>;
      let work: WorkCounts;

      beforeEach(async function () {
        store = engine.options();
        if (store === undefined) this.skip();
        peers = await startWatchPeers();
        ({ dns, receiver } = peers);
        server = await startTestServer({ ...store, adminToken: TOKEN, dnsServers: [dns.address], allowPrivateTargets: true });
        work = countWork(server.dossier);
        await server.dossier.startWorkers();
      });

      afterEach(async () => {
        await server?.close();
        await peers?.close();
        engine.cleanup();
      });

      const json = async (response: Response): Promise<Json> =>
        response.status === 204 ? {} : ((await response.json()) as Json);
      const admin = (method: string, path: string, body?: Json) =>
        server.get(`/admin/api${path}`, TOKEN, {
          method,
          ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        });
      const adminKey = async (body: Json): Promise<{ id: string; key: string }> =>
        (await json(await admin('POST', '/keys', body))).data as { id: string; key: string };

      /** A watch of example.test by `key`, once its first check (the baseline) is made. */
      async function watchOf(key: string, type = 'dns'): Promise<string> {
        const checks = work.checks;
        const created = await server.get('/api/watches', key, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type, domain: 'example.test', webhook_url: peers.hookUrl }),
        });
        expect(created.status).to.equal(201);
        const { id } = (await json(created)).data as { id: string };
        await until(
          async () => ((await json(await server.get(`/api/watches/${id}`, key))).data as Json).last_checked_at !== null,
          'the first check',
        );
        // A check is reported once it has ended, its lease given back: just after its result is stored.
        await until(() => work.checks > checks, 'the first check reported');
        return id;
      }

      /** A delivery of `id` refused once by the receiver (500): pending, its next attempt 30 s away. */
      async function refusedDelivery(id: string, key: string): Promise<Json> {
        receiver.answer = { status: 500 };
        dns.zone['example.test']!.A = [{ address: '192.0.2.9', ttl: 60 }];
        const checks = work.checks;
        expect((await server.get(`/api/watches/${id}/check`, key, { method: 'POST' })).status).to.equal(202);
        let delivery: Json | undefined;
        await until(async () => {
          [delivery] = (await json(await server.get(`/api/watches/${id}/deliveries`, key))).data as Json[];
          return delivery?.response_status === 500;
        }, 'the refused attempt');
        // Reported once it has ended, its claim given back: maybe after its delivery was tried.
        await until(() => work.checks > checks, 'the check reported');
        return delivery!;
      }

      /** The watch store beside the server (a shared store only). */
      async function beside<T>(use: (opened: OpenedWatchStore) => Promise<T>): Promise<T> {
        const opened = openWatchStore(store!.store!);
        try {
          return await use(opened);
        } finally {
          await opened.close();
        }
      }

      /** The queue of BullMQ's `<prefix>-<name>` (a BullMQ engine only). */
      const inQueue = <T>(name: string, use: (queue: Queue) => Promise<T>): Promise<T> =>
        withQueue(store!.store!, `${store!.jobQueuePrefix}-${name}`, use);

      it("lists a key's watches and removes one for the administrator, and removes a revoked key's by the time the revoke answers", async () => {
        const mine = await adminKey({ name: 'mine', owner: 'acct' });
        const colleague = await adminKey({ name: 'colleague', owner: 'acct' });
        const first = await watchOf(mine.key);
        const second = await watchOf(mine.key, 'whois');
        const kept = await watchOf(colleague.key);
        const delivery = await refusedDelivery(first, mine.key);

        const listed = await admin('GET', `/keys/${mine.id}/watches`);
        expect(listed.status).to.equal(200);
        expect(((await json(listed)).data as Json[]).map((watch) => watch.id)).to.deep.equal([second, first]);
        expect((await admin('DELETE', `/watches/${second}`)).status).to.equal(204);
        expect((await admin('DELETE', `/watches/${second}`)).status).to.equal(404);
        expect((await admin('GET', '/keys/key_0000000000000000/watches')).status).to.equal(404);
        expect((await server.get(`/api/watches/${second}`, mine.key)).status).to.equal(404);

        const revoked = await admin('POST', `/keys/${mine.id}/revoke`);
        expect(revoked.status).to.equal(200);
        expect((await json(await admin('GET', `/keys/${mine.id}/watches`))).data).to.deep.equal([]);
        expect((await server.get(`/api/watches/${first}`, colleague.key)).status).to.equal(404);
        const left = (await json(await server.get('/api/watches', colleague.key))).data as Json[];
        expect(left.map((watch) => watch.id)).to.deep.equal([kept]);
        if (!engine.shared) return;
        await beside(async ({ store: watches }) => {
          expect(await watches.get(first)).to.equal(undefined);
          expect(await watches.getDelivery(String(delivery.id))).to.equal(undefined);
          expect((await watches.pendingDeliveries()).map(({ id }) => id)).to.not.include(delivery.id);
        });
        if (store!.jobQueuePrefix === undefined) return;
        // The revoke made no call a watch to the engine: the schedule of a revoked watch undoes itself at its
        // next run, which checks nothing.
        await inQueue('watch-checks', async (queue) => {
          for (const job of await queue.getDelayed())
            if ((job.data as { watchId?: string }).watchId === first) await job.promote();
          await until(
            async () => (await queue.getJobSchedulers()).map((scheduler) => scheduler.key).join() === kept,
            'the revoked watch unscheduled',
          );
        });
        // The delivery's job, run now, makes no attempt: it finds nothing to deliver.
        await inQueue('webhook-deliveries', async (queue) => {
          await (await queue.getJob(String(delivery.id)))?.promote();
          await until(
            async () =>
              (await queue.getJob(String(delivery.id))) === undefined ||
              (await queue.getJobState(String(delivery.id))) === 'completed',
            'the job done',
          );
        });
        expect(receiver.received).to.have.length(1);
      });

      it("pauses an expired key's watches, no check and no delivery, and resumes them when its expiry moves later", async function () {
        if (store?.jobQueuePrefix === undefined) this.skip(); // the timer engines: see watches.test.ts, on a clock the test moves
        const expiresAt = new Date(Date.now() + 6000).toISOString();
        const mine = await adminKey({ name: 'mine', owner: 'acct', expires_at: expiresAt });
        const colleague = await adminKey({ name: 'colleague', owner: 'acct' });
        const id = await watchOf(mine.key);
        const delivery = await refusedDelivery(id, mine.key);
        const checked = work.checks;
        await until(
          async () => ((await json(await admin('GET', '/keys'))).data as Json[])[1]?.status === 'expired',
          'the expiry',
        );

        // Its retry, due now, is not made, and waits again.
        await beside((opened) => opened.fallDue(String(delivery.id)));
        await inQueue('webhook-deliveries', async (queue) => {
          await (await queue.getJob(String(delivery.id)))!.promote();
          await until(async () => (await queue.getJobState(String(delivery.id))) === 'delayed', 'the delivery put back');
        });
        // Nor is a check: neither the scheduled one, due now, nor one asked for (which counts nothing).
        await beside((opened) => opened.checkDue(id));
        await inQueue('watch-checks', async (queue) => {
          const [scheduled] = (await queue.getDelayed()).filter((job) => (job.data as { watchId?: string }).watchId === id);
          await scheduled!.promote();
          await until(async () => (await queue.getJob(scheduled!.id!)) === undefined, 'the scheduled check run');
        });
        const asked = await server.get(`/api/watches/${id}/check`, colleague.key, { method: 'POST' });
        expect(asked.status).to.equal(202);
        expect(asked.headers.get('X-RateLimit-Remaining')).to.equal('1000');
        expect(receiver.received).to.have.length(1);
        expect(work.checks).to.equal(checked);
        const [waiting] = (await json(await server.get(`/api/watches/${id}/deliveries`, colleague.key))).data as Json[];
        expect(waiting).to.include({ id: delivery.id, status: 'pending', attempts: 1 });

        const later = await admin('PATCH', `/keys/${mine.id}`, { expires_at: new Date(Date.now() + 86_400_000).toISOString() });
        expect(later.status).to.equal(200);
        receiver.answer = { status: 204 };
        await beside((opened) => opened.fallDue(String(delivery.id)));
        await inQueue('webhook-deliveries', async (queue) => (await queue.getJob(String(delivery.id)))!.promote());
        await receiver.waitFor(2);
        expect((await server.get(`/api/watches/${id}/check`, colleague.key, { method: 'POST' })).status).to.equal(202);
        await until(() => work.checks === checked + 1, 'the check');
      });
    });
  }

  describe("a key's watches, revoked from the library", () => {
    it('keeps them when the key is rolled, and removes them with it at dossier.keys.revoke, the call the admin API and the CLI make', async () => {
      const dossier = createDossier({ store: 'memory://', cache: 'memory://', workers: false });
      try {
        const { key } = await dossier.keys.create({ name: 'watcher', owner: 'acct' });
        const { key: other } = await dossier.keys.create({ name: 'colleague', owner: 'acct' });
        for (const domain of ['a.example.test', 'b.example.test']) {
          await dossier.watches.create({ type: 'dns', domain, keyId: key.id, owner: 'acct' });
        }
        const { watch: kept } = await dossier.watches.create({
          type: 'dns',
          domain: 'c.example.test',
          keyId: other.id,
          owner: 'acct',
        });
        expect(await dossier.watches.ofKey(key.id)).to.have.length(2);
        // Rolling the key changes nothing of its watches.
        await dossier.keys.roll(key.id);
        expect(await dossier.watches.ofKey(key.id)).to.have.length(2);
        expect((await dossier.keys.revoke(key.id)).revokedAt).to.not.equal(null);
        expect(await dossier.watches.ofKey(key.id)).to.deep.equal([]);
        expect((await dossier.watches.list({ owner: 'acct' })).map((watch) => watch.id)).to.deep.equal([kept.id]);
        // Revoking twice is not an error, and removes nothing more.
        await dossier.keys.revoke(key.id);
        expect(await dossier.watches.ofKey(other.id)).to.have.length(1);
      } finally {
        await dossier.close();
      }
    });
  });
});
