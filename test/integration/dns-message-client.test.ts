import { expect } from 'chai';
import { DossierError } from '../../lib/errors.js';
import { createDnsMessageClient } from '../../lib/lookup/dns/dns-message-client.js';
import type { HostPort } from '../../lib/lookup/net/host-port.js';
import { startDnsServer, type DnsServerOptions, type DnsZone, type TestDnsServer } from '../support/dns-server.js';

const ZONE: DnsZone = {
  'example.test': {
    SOA: { nsname: 'ns1.example.test', hostmaster: 'h.example.test', serial: 1, refresh: 1, retry: 1, expire: 1, minttl: 60 },
    TXT: [['hello']],
  },
};

/** Every question about these names answered with `rcode`. */
const failing = (rcode: number): DnsZone => ({ 'example.test': { RCODE: rcode }, 'nothing.example.test': { RCODE: rcode } });

describe('createDnsMessageClient against DNS servers on loopback', () => {
  const servers: TestDnsServer[] = [];
  /** The servers as the composition root passes them, parsed. */
  const at = (...list: TestDnsServer[]): HostPort[] => list.map(({ port }) => ({ host: '127.0.0.1', port }));
  const start = async (zone: DnsZone, options: DnsServerOptions = {}): Promise<TestDnsServer> => {
    const server = await startDnsServer(zone, options);
    servers.push(server);
    return server;
  };

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('asks with the RD, AD and DO bits and reads the answer, its AD flag and its authority section', async () => {
    const dns = await start(ZONE);
    const client = createDnsMessageClient({ servers: at(dns), timeoutMs: 1000 });
    const answer = await client.query('example.test', 'TXT', AbortSignal.timeout(5000));
    expect(answer).to.deep.equal({
      rcode: 'NOERROR',
      authenticated: false,
      answers: [{ name: 'example.test', type: 'TXT', ttl: 300, data: ['hello'] }],
      authorities: [],
    });
    expect(dns.received[0]).to.include({
      name: 'example.test',
      type: 'TXT',
      transport: 'udp',
      dnssecOk: true,
      authenticData: true,
      recursionDesired: true,
    });
    const missing = await client.query('nothing.example.test', 'TXT', AbortSignal.timeout(5000));
    expect(missing.rcode).to.equal('NXDOMAIN');
    expect(missing.authorities.map((record) => [record.name, record.type])).to.deep.equal([['example.test', 'SOA']]);
  });

  it('asks again without EDNS a server that answers FORMERR to it', async () => {
    const old = await start(ZONE, { ednsUnsupported: true });
    const answer = await createDnsMessageClient({ servers: at(old), timeoutMs: 1000 }).query(
      'example.test',
      'TXT',
      AbortSignal.timeout(5000),
    );
    expect(answer.answers).to.have.length(1);
    expect(old.received.map((q) => q.dnssecOk)).to.deep.equal([true, false]);
  });

  it('passes the question to the next server when one answers SERVFAIL or REFUSED', async () => {
    const servfail = await start(failing(2));
    const refused = await start(failing(5));
    const good = await start(ZONE);
    const client = createDnsMessageClient({ servers: at(servfail, refused, good), timeoutMs: 1000 });
    const answer = await client.query('example.test', 'TXT', AbortSignal.timeout(5000));
    expect(answer.answers).to.have.length(1);
    expect([servfail.questions, refused.questions, good.questions]).to.deep.equal([1, 1, 1]);
  });

  it('gives each server its share of the deadline, so a silent first server leaves time for the second', async () => {
    const silent = await start(ZONE);
    silent.silent = true;
    const good = await start(ZONE);
    // Had the silent server kept all 3 s, no time would be left for the second; with its share (1.5 s),
    // the second has 1.5 s to answer over loopback: far more than it needs on a loaded machine.
    const client = createDnsMessageClient({ servers: at(silent, good), timeoutMs: 3000 });
    const answer = await client.query('example.test', 'TXT', AbortSignal.timeout(4500));
    expect(answer.answers).to.have.length(1);
    expect(silent.questions).to.equal(1);
  });

  it('fails with ERR_UPSTREAM_TIMEOUT when no server answers, ERR_UPSTREAM_FAILED when all refuse', async () => {
    const silent = await start(ZONE);
    silent.silent = true;
    const timedOut = await createDnsMessageClient({ servers: at(silent), timeoutMs: 200 })
      .query('example.test', 'TXT', AbortSignal.timeout(5000))
      .catch((error: unknown) => error);
    expect(timedOut).to.include({ code: 'ERR_UPSTREAM_TIMEOUT' });
    const refused = await start(failing(5));
    const failed = await createDnsMessageClient({ servers: at(refused), timeoutMs: 1000 })
      .query('example.test', 'TXT', AbortSignal.timeout(5000))
      .catch((error: unknown) => error);
    expect(failed).to.include({ code: 'ERR_UPSTREAM_FAILED' });
    expect((failed as Error).message).to.contain('REFUSED');
  });

  it("stops at once with the reason of an aborted signal: the lookup service's deadline error", async () => {
    const silent = await start(ZONE);
    silent.silent = true;
    const controller = new AbortController();
    const reason = new DossierError('ERR_UPSTREAM_TIMEOUT', 'The lookup did not finish in time.');
    const pending = createDnsMessageClient({ servers: at(silent), timeoutMs: 10_000 }).query(
      'example.test',
      'TXT',
      controller.signal,
    );
    setTimeout(() => controller.abort(reason), 50);
    expect(await pending.catch((error: unknown) => error)).to.equal(reason);
  });
});
