import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DossierError, isDossierError } from '../../lib/errors.js';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';
import { sharedRigOptions, startWatchRig, type WatchRig } from '../support/watch-rig.js';
import { DELIVERIES_LISTED } from '../../lib/watches/keyv-watch-store.js';

const MINUTE = 60_000;

/** A port on loopback where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('watches and signed webhooks (timer engine, clock moved by the test)', () => {
  let dns: TestDnsServer;
  let receiver: TestReceiver;
  let rig: WatchRig;

  beforeEach(async () => {
    dns = await startDnsServer({
      'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }], NS: ['ns1.example.test'] },
      'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
      'tls.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
    });
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await rig?.close();
    await receiver.close();
    await dns.close();
  });

  const hookUrl = () => `http://hooks.test:${receiver.port}/hook?from=dossier`;

  /** A watch of example.test whose first delivery (its A records gone) the receiver answered with `status`. */
  async function watchWithFailedDelivery(status: number): Promise<{ id: string }> {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
    await rig.advance(0);
    receiver.answer = { status };
    dns.zone['example.test']!.A = [];
    await rig.advance(900_000);
    return watch;
  }

  it('sets a baseline at the first check, then signs and delivers dns.changed as Standard Webhooks says', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const heard: WatchEvent[] = [];
    rig.watches.on('*', (event) => heard.push(event));
    const { watch, secret } = await rig.watches.create({
      type: 'dns',
      domain: 'Example.TEST',
      webhookUrl: hookUrl(),
      owner: 'acct',
    });
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(watch).to.include({ type: 'dns', domain: 'example.test', intervalSeconds: 900, lastCheckedAt: null, lastError: null });
    await rig.advance(0);
    const checked = await rig.watches.get(watch.id, { owner: 'acct' });
    expect(checked.lastCheckedAt).to.equal(new Date(rig.clock.now()).toISOString());
    expect(checked.nextCheckAt).to.equal(new Date(rig.clock.now() + 900_000).toISOString());
    expect(receiver.received).to.have.length(0);
    expect(heard).to.have.length(0);

    dns.zone['example.test']!.A = [{ address: '192.0.2.9', ttl: 30 }];
    await rig.advance(899_000);
    expect(receiver.received).to.have.length(0);
    await rig.advance(1000);
    expect(receiver.received).to.have.length(1);
    const [hook] = receiver.received;
    const body = JSON.parse(hook!.body) as WatchEvent;
    expect(body).to.deep.equal({
      type: 'dns.changed',
      watch_id: watch.id,
      domain: 'example.test',
      timestamp: new Date(rig.clock.now()).toISOString(),
      data: { changes: { A: { added: ['192.0.2.9'], removed: ['192.0.2.1'] } } },
    });
    expect(heard).to.deep.equal([body]);
    expect(hook!.headers['content-type']).to.equal('application/json');
    const id = String(hook!.headers['webhook-id']);
    const timestamp = String(hook!.headers['webhook-timestamp']);
    expect(timestamp).to.equal(String(Math.floor(rig.clock.now() / 1000)));
    // The specification's own package verifies it (at the test clock's time) …
    const webhook = new Webhook(secret);
    const realNow = Date.now;
    Date.now = () => rig.clock.now();
    try {
      expect(webhook.verify(hook!.body, hook!.headers as Record<string, string>)).to.deep.equal(body);
    } finally {
      Date.now = realNow;
    }
    // … and so does an HMAC written from the specification's text.
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${hook!.body}`).digest('base64');
    expect(hook!.headers['webhook-signature']).to.equal(`v1,${expected}`);

    const [delivery] = await rig.watches.deliveries(watch.id, { owner: 'acct' });
    expect(delivery).to.deep.equal({
      id,
      event: 'dns.changed',
      createdAt: body.timestamp,
      status: 'delivered',
      attempts: 1,
      responseStatus: 204,
      nextAttemptAt: null,
    });
  });

  it('tries again after 30 s, 5 min, 30 min, 2 h and 8 h with the same webhook-id, then gives up', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
    await rig.advance(0);
    receiver.answer = { status: 500, body: 'no' };
    dns.zone['example.test']!.NS = ['ns2.example.test'];
    await rig.advance(900_000);
    expect(receiver.received).to.have.length(1);
    let [delivery] = await rig.watches.deliveries(watch.id);
    expect(delivery).to.include({ status: 'pending', attempts: 1, responseStatus: 500 });
    expect(delivery!.nextAttemptAt).to.equal(new Date(rig.clock.now() + 30_000).toISOString());

    await rig.advance(29_000);
    expect(receiver.received).to.have.length(1);
    const pauses = [1000, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE, 480 * MINUTE];
    for (const [index, pause] of pauses.entries()) {
      await rig.advance(pause);
      expect(receiver.received, `attempt ${index + 2}`).to.have.length(index + 2);
    }
    [delivery] = await rig.watches.deliveries(watch.id);
    expect(delivery).to.include({ status: 'failed', attempts: 6, responseStatus: 500, nextAttemptAt: null });
    const ids = new Set(receiver.received.map((hook) => hook.headers['webhook-id']));
    expect(ids.size).to.equal(1);
    const stamps = receiver.received.map((hook) => Number(hook.headers['webhook-timestamp']));
    expect(stamps).to.deep.equal([...stamps].sort((a, b) => a - b));
    expect(new Set(stamps).size).to.equal(6);
  });

  it('delivers on a second attempt once the receiver answers 2xx, reading no more than 64 KiB of the answer', async () => {
    const watch = await watchWithFailedDelivery(503);
    receiver.answer = { status: 200, body: Buffer.alloc(1024 * 1024, 'x') };
    await rig.advance(30_000);
    const [delivery] = await rig.watches.deliveries(watch.id);
    expect(delivery).to.include({ status: 'delivered', attempts: 2, responseStatus: 200 });
  });

  it('counts an answer that does not come within the deadline as a failed attempt', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true, attemptDeadlineMs: 200 });
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
    await rig.advance(0);
    let release!: () => void;
    receiver.answer = { status: 204, hold: new Promise<void>((resolve) => (release = resolve)) };
    dns.zone['example.test']!.A = [];
    try {
      await rig.advance(900_000);
      const [delivery] = await rig.watches.deliveries(watch.id);
      expect(delivery).to.include({ status: 'pending', attempts: 1, responseStatus: null });
      expect(delivery!.nextAttemptAt).to.equal(new Date(rig.clock.now() + 30_000).toISOString());
    } finally {
      release();
    }
  });

  it('stops reading an answer that never ends after 64 KiB, and takes its 2xx', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
    await rig.advance(0);
    receiver.answer = { status: 200, endless: true };
    dns.zone['example.test']!.A = [];
    await rig.advance(900_000);
    const [delivery] = await rig.watches.deliveries(watch.id);
    expect(delivery).to.include({ status: 'delivered', attempts: 1, responseStatus: 200 });
    // What the receiver could write before the connection closed: the cap and the sockets' buffers, not without end.
    expect(receiver.endlessBytes).to.be.below(16 * 1024 * 1024);
  });

  it('follows no redirect: a 3xx is a failed attempt', async () => {
    const elsewhere = await startReceiver();
    try {
      rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
      const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
      await rig.advance(0);
      receiver.answer = { status: 307, headers: { location: `http://127.0.0.1:${elsewhere.port}/` } };
      dns.zone['example.test']!.A = [];
      await rig.advance(900_000);
      const [delivery] = await rig.watches.deliveries(watch.id);
      expect(delivery).to.include({ status: 'pending', attempts: 1, responseStatus: 307 });
      expect(elsewhere.received).to.have.length(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses a literal private webhook address at creation, and never connects to a name that resolves to one', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: false });
    const error = await rig.watches
      .create({ type: 'dns', domain: 'example.test', webhookUrl: `http://127.0.0.1:${receiver.port}/` })
      .catch((e: unknown) => e);
    expect(isDossierError(error, 'ERR_WATCH_INVALID')).to.equal(true);
    expect((error as { errors: Record<string, string[]> }).errors).to.have.keys('webhookUrl');
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
    await rig.advance(0);
    dns.zone['example.test']!.A = [];
    await rig.advance(900_000);
    const [delivery] = await rig.watches.deliveries(watch.id);
    expect(delivery).to.include({ status: 'pending', attempts: 1, responseStatus: null });
    expect(receiver.received).to.have.length(0);
  });

  it('announces check.failed once, at the third upstream failure in a row, and records the error', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true, sslPort: await closedPort() });
    const heard: string[] = [];
    rig.watches.on('check.failed', (event) => heard.push(`${String(event.data.failures)} ${String(event.data.code)}`));
    const { watch } = await rig.watches.create({ type: 'ssl', domain: 'tls.test', webhookUrl: hookUrl(), intervalSeconds: 60 });
    await rig.advance(0);
    await rig.advance(60_000);
    expect(heard).to.deep.equal([]);
    await rig.advance(60_000);
    expect(heard).to.deep.equal(['3 upstream_error']);
    await rig.advance(60_000);
    expect(heard).to.deep.equal(['3 upstream_error']);
    expect((await rig.watches.get(watch.id)).lastError).to.match(/refused/);
    expect(receiver.received.map((hook) => (JSON.parse(hook.body) as WatchEvent).type)).to.deep.equal(['check.failed']);
  });

  it('neither loses nor repeats an event when a check cut off before it saved is run again', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true });
    const heard: string[] = [];
    rig.watches.on('*', (event) => heard.push(event.type));
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
    await rig.advance(0);
    const save = rig.store.save.bind(rig.store);
    let cut = true;
    rig.store.save = async (changed) => {
      if (!cut) return save(changed);
      cut = false;
      throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store went away mid-check.');
    };
    dns.zone['example.test']!.A = [];
    await rig.advance(900_000);
    // The delivery was stored and handed on before the save failed: it is made.
    expect(receiver.received).to.have.length(1);
    expect(heard).to.deep.equal([]);
    // The engine runs the check again (BullMQ tries a failed check again, and runs a stalled one elsewhere):
    // the same event, under the same delivery.
    await rig.watches.runCheck(watch.id);
    await rig.advance(0);
    expect(receiver.received).to.have.length(1);
    expect(await rig.watches.deliveries(watch.id)).to.have.length(1);
    expect(heard).to.deep.equal(['dns.changed']);
    await rig.advance(900_000);
    expect(receiver.received).to.have.length(1);
  });

  it('makes no check and no delivery after a watch is removed', async () => {
    const watch = await watchWithFailedDelivery(500);
    expect(receiver.received).to.have.length(1);
    await rig.watches.remove(watch.id);
    const questions = dns.questions;
    await rig.advance(3_600_000);
    expect(receiver.received).to.have.length(1);
    expect(dns.questions).to.equal(questions);
    const error = await rig.watches.get(watch.id).catch((e: unknown) => e);
    expect(isDossierError(error, 'ERR_WATCH_NOT_FOUND')).to.equal(true);
  });

  it('forgets every delivery of a removed watch, one that had left its list with attempts to make included, and attempts none', async () => {
    const watch = await watchWithFailedDelivery(500);
    const [pending] = await rig.store.deliveries(watch.id);
    expect(pending).to.include({ status: 'pending', attempts: 1 });
    for (let n = 1; n <= DELIVERIES_LISTED; n += 1) {
      await rig.store.insertDelivery({ ...pending!, id: `${pending!.id}_${n}`, status: 'delivered' });
    }
    expect(await rig.store.getDelivery(pending!.id), 'out of the list, attempts to make').to.include({ status: 'pending' });
    await rig.watches.remove(watch.id);
    expect(await rig.store.getDelivery(pending!.id)).to.equal(undefined);
    expect(await rig.store.pendingDeliveries()).to.deep.equal([]);
    await rig.advance(30_000);
    expect(receiver.received).to.have.length(1);
  });

  it('keeps owners apart and a key to its limit, giving a place back on removal', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true, watchesPerKey: 2 });
    const mine = { owner: 'acct-a', keyId: 'key_a' };
    const first = await rig.watches.create({ type: 'dns', domain: 'example.test', ...mine });
    const second = await rig.watches.create({ type: 'whois', domain: 'example.test', ...mine });
    const full = await rig.watches.create({ type: 'ssl', domain: 'example.test', ...mine }).catch((e: unknown) => e);
    expect(isDossierError(full, 'ERR_WATCH_INVALID')).to.equal(true);
    expect((await rig.watches.list({ owner: 'acct-a' })).map((w) => w.id)).to.deep.equal([second.watch.id, first.watch.id]);
    expect(await rig.watches.list({ owner: 'acct-b' })).to.deep.equal([]);
    const other = await rig.watches.get(first.watch.id, { owner: 'acct-b' }).catch((e: unknown) => e);
    expect(isDossierError(other, 'ERR_WATCH_NOT_FOUND')).to.equal(true);
    await rig.watches.remove(first.watch.id, { owner: 'acct-a' });
    await rig.watches.create({ type: 'ssl', domain: 'example.test', ...mine });
  });

  it('undoes a creation whose schedule the job engine refused: no watch left unchecked, its place given back', async () => {
    rig = await startWatchRig({ dnsServers: [dns.address], allowPrivateTargets: true, watchesPerKey: 1 });
    const mine = { owner: 'acct-a', keyId: 'key_a' };
    const schedule = rig.jobs.schedule.bind(rig.jobs);
    // The engine's store goes away between the watch's insert and its schedule.
    rig.jobs.schedule = () => Promise.reject(new DossierError('ERR_STORE_UNAVAILABLE', 'The job queue is unavailable.'));
    const refused = await rig.watches.create({ type: 'dns', domain: 'example.test', ...mine }).catch((e: unknown) => e);
    expect(isDossierError(refused, 'ERR_STORE_UNAVAILABLE')).to.equal(true);
    expect(await rig.watches.list({ owner: 'acct-a' })).to.deep.equal([]);
    rig.jobs.schedule = schedule;
    const { watch } = await rig.watches.create({ type: 'dns', domain: 'example.test', ...mine });
    await rig.advance(0);
    expect((await rig.watches.get(watch.id, mine)).lastCheckedAt).to.not.equal(null);
  });

  it('on one SQLite file, the process that runs the work takes up what another one added', async () => {
    const { options: shared, clock, cleanup } = sharedRigOptions([dns.address]);
    // A server with DOSSIER_WORKERS=false, and a worker beside it.
    const server = await startWatchRig({ ...shared, runsWork: false });
    rig = await startWatchRig(shared);
    try {
      const { watch } = await server.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: hookUrl() });
      await server.advance(0);
      expect((await server.watches.get(watch.id)).lastCheckedAt).to.equal(null);
      await rig.jobs.resync();
      await rig.advance(0);
      expect((await server.watches.get(watch.id)).lastCheckedAt).to.equal(new Date(clock.now()).toISOString());
      // A check asked of the server runs there at once; its delivery is the worker's to make.
      dns.zone['example.test']!.A = [];
      await server.watches.check(watch.id);
      await server.jobs.settled();
      expect(receiver.received).to.have.length(0);
      await rig.jobs.resync();
      await rig.advance(0);
      expect(receiver.received).to.have.length(1);
      expect((await server.watches.deliveries(watch.id))[0]).to.include({ status: 'delivered', attempts: 1 });
      // Removed through the server: the worker forgets it at its next reading.
      await server.watches.remove(watch.id);
      await rig.jobs.resync();
      const questions = dns.questions;
      await rig.advance(3_600_000);
      expect(dns.questions).to.equal(questions);
    } finally {
      await server.close();
      await rig.close();
      cleanup();
    }
  });
});
