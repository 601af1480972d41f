import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { DossierError, isDossierError, DossierQuotaError } from '../../lib/errors.js';
import type { WatchEvent } from '../../lib/ports/watches.js';
import type { TestDnsServer } from '../support/dns-server.js';
import type { TestReceiver } from '../support/webhook-receiver.js';
import { startWatchPeers, type WatchPeers } from '../support/watch-peers.js';
import { sharedRigOptions, startWatchRig, testClock, type WatchRig } from '../support/watch-rig.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** Verifies a delivery as a receiver does, with the Standard Webhooks package, at the test clock's time. */
function verifies(secret: string, hook: { body: string; headers: Record<string, unknown> }, now: number): boolean {
  const realNow = Date.now;
  Date.now = () => now;
  try {
    new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  } finally {
    Date.now = realNow;
  }
}

describe("watches on the timer engine keep the key's promises (clock moved by the test)", () => {
  let peers: WatchPeers;
  let dns: TestDnsServer;
  let receiver: TestReceiver;
  let rig: WatchRig;

  beforeEach(async () => {
    peers = await startWatchPeers();
    ({ dns, receiver } = peers);
  });

  afterEach(async () => {
    await rig?.close();
    await peers.close();
  });

  const hookUrl = (): string => peers.hookUrl;

  /** A key of the rig's Dossier (its clock is the rig's), and a watch it created, checked once (the baseline). */
  async function keyWithWatch(key: { dailyLimit?: number; expiresAt?: string } = {}) {
    const created = await rig.dossier.keys.create({ name: 'watcher', owner: 'acct', ...key });
    const { watch, secret } = await rig.watches.create({
      type: 'dns',
      domain: 'example.test',
      webhookUrl: hookUrl(),
      keyId: created.key.id,
      owner: 'acct',
    });
    await rig.advance(0);
    return { key: created.key, watch, secret };
  }

  /** Changes the zone, so that the next check announces dns.changed. */
  const change = (address: string): void => {
    dns.zone['example.test']!.A = [{ address, ttl: 60 }];
  };

  it("pauses an expired key's watches, no check and no delivery, and resumes them when its expiry moves later", async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { key, watch } = await keyWithWatch({ expiresAt: new Date(testClock().now() + 3_600_000).toISOString() });
    receiver.answer = { status: 500 };
    change('192.0.2.2');
    await rig.advance(15 * MINUTE);
    expect(receiver.received).to.have.length(1);
    const questions = dns.questions;

    // Past its expiry: the retry and the checks fall due, and none is made; an on-demand one neither.
    await rig.advance(3_600_000);
    await rig.advance(DAY);
    expect(receiver.received).to.have.length(1);
    expect(dns.questions).to.equal(questions);
    const asked = await rig.watches.check(watch.id, { owner: 'acct' });
    expect(asked).to.include({ started: false });
    await rig.jobs.settled();
    expect(dns.questions).to.equal(questions);
    const [paused] = await rig.watches.deliveries(watch.id, { owner: 'acct' });
    expect(paused).to.include({ status: 'pending', attempts: 1 });

    await rig.dossier.keys.update(key.id, { expiresAt: new Date(rig.clock.now() + 7 * DAY).toISOString() });
    receiver.answer = { status: 204 };
    await rig.advance(MINUTE);
    expect(receiver.received).to.have.length(2);
    expect((await rig.watches.deliveries(watch.id, { owner: 'acct' }))[0]).to.include({ status: 'delivered', attempts: 2 });
    await rig.advance(15 * MINUTE);
    expect(dns.questions).to.be.above(questions);
  });

  it('removes, at its next check or attempt, a watch whose key was revoked where its watches could not be reached', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { key, watch } = await keyWithWatch();
    receiver.answer = { status: 500 };
    change('192.0.2.2');
    await rig.advance(15 * MINUTE);
    // Revoked through the rig's Dossier, whose own watch service does not hold this watch.
    await rig.dossier.keys.revoke(key.id);
    const questions = dns.questions;
    await rig.advance(MINUTE);
    expect(receiver.received).to.have.length(1);
    const gone = await rig.watches.get(watch.id, { owner: 'acct' }).catch((error: unknown) => error);
    expect(isDossierError(gone, 'ERR_WATCH_NOT_FOUND')).to.equal(true);
    expect(await rig.store.pendingDeliveries()).to.deep.equal([]);
    await rig.advance(DAY);
    expect(dns.questions).to.equal(questions);
  });

  it('counts an on-demand check against the key that created the watch, refuses one past the quota, and gives back one that could not start', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { key, watch } = await keyWithWatch({ dailyLimit: 1 });
    const started = await rig.watches.check(watch.id, { owner: 'acct' });
    expect(started).to.deep.include({ started: true });
    expect(started.quota).to.include({ limit: 1, remaining: 0 });
    await rig.jobs.settled();
    const refused = await rig.watches.check(watch.id, { owner: 'acct' }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(DossierQuotaError);
    expect((refused as DossierQuotaError).quota).to.include({ remaining: 0, allowed: false });

    const other = await rig.dossier.keys.create({ name: 'other', owner: 'acct', dailyLimit: 5 });
    const checkNow = rig.jobs.checkNow.bind(rig.jobs);
    rig.jobs.checkNow = () => Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The job engine is unavailable.'));
    const down = await rig.watches.check(watch.id, { owner: 'acct', key: other.key }).catch((error: unknown) => error);
    expect(isDossierError(down, 'ERR_STORE_UNAVAILABLE')).to.equal(true);
    expect((await rig.dossier.quotas.history(other.key.id, 1))[0]).to.include({ total: 0 });
    rig.jobs.checkNow = checkNow;
    // Its claim was given back with it: the next one starts.
    expect(await rig.watches.check(watch.id, { owner: 'acct', key: other.key })).to.deep.include({ started: true });
    expect((await rig.dossier.quotas.history(other.key.id, 1))[0]).to.include({ dns: 1, total: 1 });
    expect((await rig.dossier.quotas.history(key.id, 1))[0]).to.include({ dns: 1, total: 1 });
  });

  it('gives back the charge of an on-demand check the store kept from being made, and starts the next one asked', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { key, watch } = await keyWithWatch({ dailyLimit: 5 });
    // The request reads the watch (found); the check, once under way, finds the store past its deadline.
    const get = rig.store.get.bind(rig.store);
    let reads = 0;
    rig.store.get = (id) =>
      (reads += 1) === 2 ? Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The store is unavailable.')) : get(id);
    expect(await rig.watches.check(watch.id, { owner: 'acct' })).to.deep.include({ started: true });
    await rig.jobs.settled();
    expect(reads).to.equal(2);
    expect((await rig.dossier.quotas.history(key.id, 1))[0]).to.include({ total: 0 });
    const next = await rig.watches.check(watch.id, { owner: 'acct' });
    expect(next).to.deep.include({ started: true });
    expect(next.quota).to.include({ remaining: 4 });
    await rig.jobs.settled();
    expect((await rig.dossier.quotas.history(key.id, 1))[0]).to.include({ dns: 1, total: 1 });
  });

  it('signs with the new and the old secret for 24 hours after a rotation, then with the new one only', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { watch, secret: old } = await keyWithWatch();
    const rotated = await rig.watches.rotateSecret(watch.id, { owner: 'acct' });
    expect(rotated.secret)
      .to.match(/^whsec_[A-Za-z0-9+/]{43}=$/)
      .and.not.equal(old);
    expect(rotated.watch).to.deep.equal(await rig.watches.get(watch.id, { owner: 'acct' }));
    expect(rotated.watch).to.not.have.property('secret');

    change('192.0.2.2');
    await rig.advance(15 * MINUTE);
    const [both] = await receiver.waitFor(1);
    const signatures = String(both!.headers['webhook-signature']).split(' ');
    expect(signatures).to.have.length(2);
    for (const signature of signatures) expect(signature).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifies(rotated.secret, both!, rig.clock.now()), 'the new secret').to.equal(true);
    expect(verifies(old, both!, rig.clock.now()), 'the old secret').to.equal(true);

    await rig.advance(DAY - 15 * MINUTE);
    change('192.0.2.3');
    await rig.advance(15 * MINUTE);
    const hooks = await receiver.waitFor(2);
    const last = hooks.at(-1)!;
    expect((JSON.parse(last.body) as WatchEvent).data).to.deep.equal({
      changes: { A: { added: ['192.0.2.3'], removed: ['192.0.2.2'] } },
    });
    expect(String(last.headers['webhook-signature']).split(' ')).to.have.length(1);
    expect(verifies(rotated.secret, last, rig.clock.now())).to.equal(true);
    expect(verifies(old, last, rig.clock.now())).to.equal(false);
  });

  it('takes a 2xx whose body trickles on past the deadline as delivered', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true, attemptDeadlineMs: 300 });
    const { watch } = await keyWithWatch();
    receiver.answer = { status: 200, trickleMs: 50 };
    change('192.0.2.2');
    await rig.advance(15 * MINUTE);
    const [delivery] = await rig.watches.deliveries(watch.id, { owner: 'acct' });
    expect(delivery).to.include({ status: 'delivered', attempts: 1, responseStatus: 200, nextAttemptAt: null });
  });

  it('makes each check and each attempt once with two processes on one SQLite file, while a receiver hangs', async () => {
    const { options: shared, clock, cleanup } = sharedRigOptions([dns.address]);
    rig = await startWatchRig(shared);
    const other = await startWatchRig(shared);
    try {
      const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
      await other.jobs.resync();
      // The questions of the checks, about the watched zone (a delivery asks for hooks.test).
      const asked = (): number => dns.received.filter((question) => question.name.endsWith('example.test')).length;
      await Promise.all([rig.advance(0), other.advance(0)]);
      const perCheck = asked();
      let release!: () => void;
      receiver.answer = { status: 204, hold: new Promise<void>((resolve) => (release = resolve)) };
      change('192.0.2.2');
      clock.advance(15 * MINUTE);
      // Both processes find the check due at once: one makes it, and the first attempt of its delivery.
      const running = Promise.all([rig.jobs.runDue(), other.jobs.runDue()]);
      await receiver.waitForArrivals(1);
      // Each takes up the delivery it did not make, and tries: the attempt under way holds it.
      await Promise.all([rig.jobs.resync(), other.jobs.resync()]);
      await Promise.all([rig.jobs.runDue(), other.jobs.runDue()]);
      const [under] = await rig.watches.deliveries(watch.id);
      expect(under).to.include({ status: 'pending', attempts: 1, responseStatus: null });
      release();
      await running;
      for (const pause of [0, 10_000, 30_000, 3_600_000]) {
        clock.advance(pause);
        await Promise.all([rig.advance(0), other.advance(0)]);
      }
      expect(receiver.received).to.have.length(1);
      expect((await rig.watches.deliveries(watch.id))[0]).to.include({ status: 'delivered', attempts: 1, responseStatus: 204 });
      // The first check, the one at 15 min and the one due within the hour after: one each, not one per process.
      expect(asked()).to.equal(3 * perCheck);

      // Two attempts of one delivery asked at the same instant, both finding it due: one POST.
      receiver.answer = { status: 500 };
      change('192.0.2.3');
      clock.advance(15 * MINUTE);
      await Promise.all([rig.advance(0), other.advance(0)]);
      expect(receiver.received).to.have.length(2);
      const [refused] = await rig.watches.deliveries(watch.id);
      clock.advance(30_000);
      receiver.answer = { status: 204, hold: new Promise<void>((resolve) => (release = resolve)) };
      const both = Promise.all([rig.watches.attempt(refused!.id), other.watches.attempt(refused!.id)]);
      await receiver.waitForArrivals(3);
      release();
      expect((await both).filter((wait) => wait === null)).to.have.length(1);
      expect(receiver.received).to.have.length(3);
      expect((await rig.watches.deliveries(watch.id))[0]).to.include({ status: 'delivered', attempts: 2 });
    } finally {
      await other.close();
      cleanup();
    }
  });
});
