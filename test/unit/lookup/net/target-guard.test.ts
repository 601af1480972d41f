import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import type { RecordWithTtl } from 'node:dns';
import { isIP } from 'node:net';
import { isDossierError } from '../../../../lib/errors.js';
import { isPublicAddress, RangeTargetGuard } from '../../../../lib/lookup/net/target-guard.js';
import type { DnsResolver } from '../../../../lib/ports/dns-resolver.js';

/** Every spelling of a private address tried, and the verdict: may a lookup connect to it? */
const VERDICTS: [address: string, isPublic: boolean, what: string][] = [
  ['127.0.0.1', false, 'loopback'],
  ['127.255.255.254', false, 'loopback, end of 127/8'],
  ['10.0.0.1', false, 'private 10/8'],
  ['10.255.255.255', false, 'private 10/8, last'],
  ['172.16.0.1', false, 'private 172.16/12'],
  ['172.31.255.254', false, 'private 172.16/12, last'],
  ['172.32.0.1', true, 'just outside 172.16/12'],
  ['192.168.0.1', false, 'private 192.168/16'],
  ['169.254.169.254', false, 'cloud metadata (link-local)'],
  ['169.254.170.2', false, 'AWS ECS task metadata (link-local)'],
  ['100.64.0.1', false, 'CGNAT 100.64/10'],
  ['100.127.255.254', false, 'CGNAT 100.64/10, last'],
  ['100.128.0.1', true, 'just outside 100.64/10'],
  ['100.100.100.200', false, 'Alibaba Cloud metadata (CGNAT)'],
  ['0.0.0.0', false, 'this network'],
  ['255.255.255.255', false, 'limited broadcast'],
  ['224.0.0.1', false, 'multicast'],
  ['239.255.255.250', false, 'multicast (SSDP)'],
  ['192.0.2.1', false, 'documentation'],
  ['198.51.100.1', false, 'documentation'],
  ['203.0.113.1', false, 'documentation'],
  ['198.18.0.1', false, 'benchmarking'],
  ['240.0.0.1', false, 'reserved'],
  ['192.0.0.192', false, 'IETF protocol assignments (OCI legacy metadata)'],
  ['168.63.129.16', false, 'Azure WireServer'],
  ['::1', false, 'IPv6 loopback'],
  ['::', false, 'IPv6 unspecified'],
  ['fe80::1', false, 'IPv6 link-local'],
  ['fc00::1', false, 'unique local'],
  ['fd00:ec2::254', false, 'AWS IMDS over IPv6 (unique local)'],
  ['fd20:ce::254', false, 'GCP metadata over IPv6 (unique local)'],
  ['ff02::1', false, 'IPv6 multicast'],
  ['fec0::1', false, 'deprecated site-local'],
  ['::ffff:127.0.0.1', false, 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', false, 'IPv4-mapped loopback, hex'],
  ['::ffff:169.254.169.254', false, 'IPv4-mapped metadata'],
  ['::ffff:168.63.129.16', false, 'IPv4-mapped Azure WireServer'],
  ['::ffff:8.8.8.8', true, 'IPv4-mapped public'],
  ['::ffff:0:127.0.0.1', false, 'IPv4-translated loopback (RFC 6145)'],
  ['::127.0.0.1', false, 'IPv4-compatible (deprecated, outside global unicast)'],
  ['64:ff9b::7f00:1', false, 'NAT64 of loopback'],
  ['64:ff9b::127.0.0.1', false, 'NAT64 of loopback, dotted'],
  ['64:ff9b::a9fe:a9fe', false, 'NAT64 of metadata'],
  ['64:ff9b::808:808', true, 'NAT64 of a public address'],
  ['64:ff9b:1::808:808', false, 'local-use NAT64 (RFC 8215)'],
  ['64:ff9b:1:ffff::1', false, 'local-use NAT64, elsewhere in the /48'],
  ['64:ff9b:2::808:808', false, 'beside the NAT64 prefixes, outside global unicast'],
  ['2002:7f00:1::1', false, '6to4 of loopback'],
  ['2002:a9fe:a9fe::1', false, '6to4 of metadata'],
  ['2002:808:808::1', true, '6to4 of a public address'],
  ['2001::1', false, 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false, 'Teredo, a real-looking one'],
  ['2001:2::1', false, 'IPv6 benchmarking'],
  ['2001:db8::1', false, 'IPv6 documentation'],
  ['3fff::1', false, 'IPv6 documentation (RFC 9637)'],
  ['100::1', false, 'discard-only'],
  ['5f00::1', false, 'SRv6 SIDs'],
  ['4000::1', false, 'outside global unicast'],
  ['8.8.8.8', true, 'Google DNS'],
  ['1.1.1.1', true, 'Cloudflare DNS'],
  ['2606:4700:4700::1111', true, 'Cloudflare DNS over IPv6'],
  ['2a02:cf40::1', true, 'public IPv6'],
];

/** Text `node:net` does not take as an address: never public, whatever it might mean elsewhere. */
const NOT_ADDRESSES = [
  '',
  '127.1',
  '0x7f.1',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '2130706433',
  '08.8.8.8',
  '8.8.8',
  '8.8.8.8.8',
  ' 8.8.8.8',
  '8.8.8.8\n',
  '[::1]',
  '[2606:4700:4700::1111]',
  '8.8.8.8:53',
  'localhost',
  'example.com',
  '1::2::3',
  '８.８.８.８',
];

describe('isPublicAddress', () => {
  for (const [address, isPublic, what] of VERDICTS) {
    it(`${isPublic ? 'allows' : 'refuses'} ${address} (${what})`, () => {
      expect(isIP(address), 'the table holds only addresses node:net accepts').to.not.equal(0);
      expect(isPublicAddress(address)).to.equal(isPublic);
    });
  }

  for (const text of NOT_ADDRESSES) {
    it(`refuses ${JSON.stringify(text)}, which node:net does not take as an address`, () => {
      expect(isIP(text)).to.equal(0);
      expect(isPublicAddress(text)).to.equal(false);
    });
  }

  it('refuses an address with a zone index, even a public one', () => {
    expect(isIP('2606:4700:4700::1111%eth0')).to.equal(6);
    expect(isPublicAddress('2606:4700:4700::1111%eth0')).to.equal(false);
    expect(isPublicAddress('fe80::1%eth0')).to.equal(false);
  });

  it('refuses every address ipaddr.js puts in a special range', () => {
    const samples = [
      '0.1.2.3',
      '192.0.0.1',
      '192.88.99.1',
      '192.175.48.1',
      '192.31.196.1',
      '192.52.193.1',
      '2001:3::1',
      '2001:4:112::1',
      '2620:4f:8000::1',
      '2001:10::1',
      '2001:20::1',
      '2001:30::1',
      '100::1',
      '5f00::1',
      '3fff::1',
      '::ffff:0:0:1',
    ];
    for (const address of samples) {
      expect(ipaddr.parse(address).range(), address).not.to.equal('unicast');
      expect(isPublicAddress(address), address).to.equal(false);
    }
  });
});

/** A resolver that answers from fixed lists (`ENODATA` for an empty one) and counts what it was asked. */
function fakeResolver(answers: {
  A?: readonly string[];
  AAAA?: readonly string[];
  error?: string;
}): DnsResolver & { asked: string[] } {
  const asked: string[] = [];
  const answer =
    (type: string, list: readonly string[] | undefined) =>
    async (host: string): Promise<RecordWithTtl[]> => {
      asked.push(`${type} ${host}`);
      if (answers.error !== undefined) throw Object.assign(new Error(answers.error), { code: answers.error });
      if (list === undefined || list.length === 0) throw Object.assign(new Error('ENODATA'), { code: 'ENODATA' });
      return list.map((address) => ({ address, ttl: 60 }));
    };
  const unused = (): never => {
    throw new Error('not expected to be asked');
  };
  return {
    asked,
    resolve4: answer('A', answers.A),
    resolve6: answer('AAAA', answers.AAAA),
    resolveMx: unused,
    resolveNs: unused,
    resolveTxt: unused,
    resolveCname: unused,
    resolveSoa: unused,
    reverse: unused,
    cancel() {},
  };
}

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => expect.fail(`expected a failure, got ${String(value)}`),
    (error: unknown) => error,
  );

describe('RangeTargetGuard.resolve', () => {
  it('returns the first A record when every address is public', async () => {
    const resolver = fakeResolver({ A: ['93.184.216.34', '8.8.8.8'], AAAA: ['2606:4700:4700::1111'] });
    expect(await new RangeTargetGuard(false).resolve('example.test', resolver)).to.equal('93.184.216.34');
    expect(resolver.asked).to.have.members(['A example.test', 'AAAA example.test']);
  });

  it('returns the first AAAA record when the name has no A record', async () => {
    const resolver = fakeResolver({ AAAA: ['2606:4700:4700::1111'] });
    expect(await new RangeTargetGuard(false).resolve('v6.test', resolver)).to.equal('2606:4700:4700::1111');
  });

  for (const [what, answers] of [
    ['a private A record beside a public one', { A: ['93.184.216.34', '10.0.0.1'] }],
    ['a private A record before a public one', { A: ['127.0.0.1', '93.184.216.34'] }],
    ['a loopback AAAA record beside a public A record', { A: ['93.184.216.34'], AAAA: ['::1'] }],
    ['a NAT64 spelling of loopback', { AAAA: ['64:ff9b::7f00:1'] }],
    ['an IPv4-mapped private address', { A: ['8.8.8.8'], AAAA: ['::ffff:192.168.1.1'] }],
    ['the metadata address (metadata.google.internal)', { A: ['169.254.169.254'] }],
    ['the Azure WireServer', { A: ['168.63.129.16'] }],
  ] as const) {
    it(`refuses a name with ${what}`, async () => {
      const error = await failure(new RangeTargetGuard(false).resolve('rebind.test', fakeResolver(answers)));
      expect(isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED'), String(error)).to.equal(true);
      expect((error as Error).message).to.include('rebind.test');
    });
  }

  it('lifts the rule with allowPrivateTargets, and returns the first A record', async () => {
    const resolver = fakeResolver({ A: ['127.0.0.1', '93.184.216.34'], AAAA: ['::1'] });
    expect(await new RangeTargetGuard(true).resolve('local.test', resolver)).to.equal('127.0.0.1');
    expect(() => new RangeTargetGuard(true).assertAllowed('169.254.169.254')).not.to.throw();
  });

  it('checks an IP literal without asking the resolver, with or without brackets', async () => {
    const resolver = fakeResolver({});
    expect(await new RangeTargetGuard(false).resolve('8.8.8.8', resolver)).to.equal('8.8.8.8');
    expect(await new RangeTargetGuard(false).resolve('[2606:4700:4700::1111]', resolver)).to.equal('2606:4700:4700::1111');
    for (const literal of ['127.0.0.1', '[::1]', '::ffff:127.0.0.1', '[64:ff9b::7f00:1]', '2002:7f00:1::1']) {
      const error = await failure(new RangeTargetGuard(false).resolve(literal, resolver));
      expect(isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED'), literal).to.equal(true);
    }
    expect(await new RangeTargetGuard(true).resolve('[::1]', resolver)).to.equal('::1');
    expect(resolver.asked).to.deep.equal([]);
  });

  it('fails with ERR_UPSTREAM_FAILED for a name with no address, and ERR_UPSTREAM_TIMEOUT when the DNS is silent', async () => {
    const none = await failure(new RangeTargetGuard(false).resolve('none.test', fakeResolver({ error: 'ENOTFOUND' })));
    expect(isDossierError(none, 'ERR_UPSTREAM_FAILED'), String(none)).to.equal(true);
    const empty = await failure(new RangeTargetGuard(false).resolve('empty.test', fakeResolver({})));
    expect(isDossierError(empty, 'ERR_UPSTREAM_FAILED'), String(empty)).to.equal(true);
    const silent = await failure(new RangeTargetGuard(false).resolve('slow.test', fakeResolver({ error: 'ETIMEOUT' })));
    expect(isDossierError(silent, 'ERR_UPSTREAM_TIMEOUT'), String(silent)).to.equal(true);
  });
});
