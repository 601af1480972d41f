import { expect } from 'chai';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { hasNsd, startNsd, type TestNsd } from '../support/nsd.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';
import { startWatchRig, type WatchRig } from '../support/watch-rig.js';

/** The zone as its operator first publishes it, then with its serial, mail and name servers moved. */
function zone(serial: number, moved: boolean): string {
  return `$ORIGIN shop.test.
$TTL 300
@     IN SOA ns1.shop.test. hostmaster.shop.test. ${serial} 3600 600 86400 300
@     IN NS  ${moved ? 'ns1.elsewhere.test.' : 'ns1.shop.test.'}
@     IN NS  ns2.shop.test.
@     IN A   192.0.2.10
@     IN MX  10 ${moved ? 'mx.elsewhere.test.' : 'mail.shop.test.'}
@     IN TXT "v=spf1 -all"
@     IN CAA 0 issue "letsencrypt.org"
ns1   IN A   192.0.2.53
ns2   IN A   192.0.2.54
mail  IN A   192.0.2.25
hooks IN A   127.0.0.1
`;
}

describe('watches: dns.changed from a real authoritative server (NSD), its zone rewritten and reloaded', () => {
  let nsd: TestNsd;
  let receiver: TestReceiver;
  let rig: WatchRig;

  before(function () {
    if (!hasNsd) {
      console.log('    (skipped: nsd not found; install Debian package nsd)');
      this.skip();
    }
  });

  beforeEach(async () => {
    nsd = await startNsd({ 'shop.test': zone(1, false) });
    receiver = await startReceiver();
  });

  afterEach(async () => {
    await rig?.close();
    await receiver?.close();
    await nsd?.close();
  });

  it('sets a baseline, stays quiet on a reload that changes only the serial and TTLs, and tells what moved', async () => {
    rig = await startWatchRig({ dnsServers: [nsd.address], allowPrivateTargets: true });
    const { watch } = await rig.watches.create({
      type: 'dns',
      domain: 'shop.test',
      webhookUrl: `http://hooks.shop.test:${receiver.port}/in`,
    });
    await rig.advance(0);
    const baseline = await rig.watches.get(watch.id);
    expect(baseline).to.include({ lastError: null });
    expect(baseline.lastCheckedAt).to.not.equal(null);

    await nsd.reload('shop.test', zone(2, false).replace('$TTL 300', '$TTL 60'));
    await rig.advance(900_000);
    expect(receiver.received, 'a new serial and TTLs are no change').to.have.length(0);

    await nsd.reload('shop.test', zone(3, true));
    await rig.advance(900_000);
    expect(receiver.received).to.have.length(1);
    const event = JSON.parse(receiver.received[0]!.body) as WatchEvent;
    expect(event).to.deep.include({ type: 'dns.changed', watch_id: watch.id, domain: 'shop.test' });
    expect(event.data).to.deep.equal({
      changes: {
        MX: { added: [{ exchange: 'mx.elsewhere.test', priority: 10 }], removed: [{ exchange: 'mail.shop.test', priority: 10 }] },
        NS: { added: ['ns1.elsewhere.test'], removed: ['ns1.shop.test'] },
      },
    });
  });
});
