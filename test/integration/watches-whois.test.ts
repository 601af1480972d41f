import { expect } from 'chai';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';
import { startWatchRig, testClock, type WatchRig } from '../support/watch-rig.js';
import { startWhoisServer, verisignWhois, type TestWhoisServer } from '../support/whois-server.js';

const DAY = 86_400_000;
/** The expiry date `verisignWhois` writes. */
const EXPIRES = Date.parse('2028-09-14T04:00:00Z');

/** A whois watch against a whois server on loopback, with the Clock moved towards the expiry date. */
describe('a whois watch against a whois server on loopback', () => {
  let dns: TestDnsServer;
  let whois: TestWhoisServer;
  let receiver: TestReceiver;
  let rig: WatchRig;
  let registrar: string;

  beforeEach(async () => {
    dns = await startDnsServer({ 'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] } });
    registrar = 'MarkMonitor Inc.';
    whois = await startWhoisServer((query) => verisignWhois({ domain: query, registrar, thin: true, registrarWhois: '' }));
    receiver = await startReceiver();
    rig = await startWatchRig({
      dnsServers: [dns.address],
      allowPrivateTargets: true,
      whoisServer: whois.address,
      clock: testClock(EXPIRES - 35 * DAY),
    });
  });

  afterEach(async () => {
    await rig.close();
    await receiver.close();
    await whois.close();
    await dns.close();
  });

  it('announces 30, 7 and 1 days before expires_at once each, a new registrar as a change, and a server answering nonsense as one check.failed', async () => {
    const { watch } = await rig.watches.create({
      type: 'whois',
      domain: 'watched.com',
      webhookUrl: `http://hooks.test:${receiver.port}/`,
      intervalSeconds: 86_400,
    });
    const events = (): [string, unknown][] =>
      receiver.received.map((hook) => {
        const event = JSON.parse(hook.body) as WatchEvent;
        return [event.type, event.data.threshold ?? event.data.changes ?? event.data.failures];
      });
    await rig.advance(0);
    expect(events()).to.deep.equal([]);
    for (let day = 1; day <= 35; day += 1) await rig.advance(DAY);
    expect(events()).to.deep.equal([
      ['whois.expiring', 30],
      ['whois.expiring', 7],
      ['whois.expiring', 1],
    ]);
    expect((JSON.parse(receiver.received[0]!.body) as WatchEvent).data).to.deep.equal({
      threshold: 30,
      expires_at: '2028-09-14T04:00:00.000Z',
      days_remaining: 30,
    });
    registrar = 'Another Registrar, LLC';
    await rig.advance(DAY);
    expect(events()[3]).to.deep.equal([
      'whois.changed',
      { registrar: { before: 'MarkMonitor Inc.', after: 'Another Registrar, LLC' } },
    ]);
    whois.reply = () => ({ garbage: true });
    for (let day = 1; day <= 4; day += 1) await rig.advance(DAY);
    expect(events().slice(4)).to.deep.equal([['check.failed', 3]]);
    expect((await rig.watches.get(watch.id)).lastError).to.be.a('string');
  });
});
