import { expect } from 'chai';
import { isDossierError } from '../../../../lib/errors.js';
import { parseIpAddress } from '../../../../lib/lookup/net/ip-address.js';
import { specialRangeOf } from '../../../../lib/lookup/net/special-range.js';

/** Bad values of the ip parameter; each must be refused with ERR_LOOKUP_INVALID_IP. */
const BAD_IPS: [string, unknown][] = [
  ['missing', undefined],
  ['empty', ''],
  ['repeated', ['8.8.8.8', '1.1.1.1']],
  ['short IPv4', '127.1'],
  ['hexadecimal IPv4', '0x7f.0.0.1'],
  ['octal IPv4', '0177.0.0.1'],
  ['leading zero', '8.8.8.08'],
  ['five parts', '1.2.3.4.5'],
  ['octet over 255', '256.1.1.1'],
  ['integer IPv4', '2130706433'],
  ['IPv4 with port', '8.8.8.8:53'],
  ['IPv6 with zone id', 'fe80::1%eth0'],
  ['IPv6 in brackets', '[2001:db8::1]'],
  ['IPv6 in brackets with port', '[2001:db8::1]:443'],
  ['CIDR', '8.8.8.0/24'],
  ['URL', 'http://8.8.8.8/'],
  ['domain name', 'example.com'],
  ['leading space', ' 8.8.8.8'],
  ['trailing newline', '8.8.8.8\n'],
  ['inner tab', '8.8.\t8.8'],
  ['NUL', '8.8.8.8\u0000'],
  ['full-width digits', '８.８.８.８'],
  ['full-width dot', '8。8。8。8'],
  ['percent-encoded', '8.8.8.8%20'],
  ['too many IPv6 groups', '1:2:3:4:5:6:7:8:9'],
  ['two ::', '1::2::3'],
  ['IPv6 group too long', '2001:db8::12345'],
  ['IPv4 tail with leading zero', '::ffff:127.0.0.01'],
  ['254 characters', 'a'.repeat(254)],
  ['46 characters', '1'.repeat(46)],
  ['userinfo', 'user@8.8.8.8'],
];

describe('parseIpAddress', () => {
  it('keeps a dotted-quad IPv4 address as it is', () => {
    expect(parseIpAddress('81.2.69.142')).to.deep.equal({ address: '81.2.69.142', version: 4, mappedIpv4: null });
  });

  it('writes IPv6 compressed in lower case (RFC 5952)', () => {
    expect(parseIpAddress('2001:0DB8:0000:0000:0001:0000:0000:0001').address).to.equal('2001:db8::1:0:0:1');
    expect(parseIpAddress('2A02:CF40:0:0:0:0:0:1')).to.deep.equal({ address: '2a02:cf40::1', version: 6, mappedIpv4: null });
    expect(parseIpAddress('1:0:0:0:0:0:0:8').address).to.equal('1::8');
    expect(parseIpAddress('0:0:0:0:0:0:0:1').address).to.equal('::1');
  });

  it('keeps an IPv4-mapped address as IPv6, in the mixed notation of RFC 5952 §5', () => {
    expect(parseIpAddress('::FFFF:81.2.69.142')).to.deep.equal({
      address: '::ffff:81.2.69.142',
      version: 6,
      mappedIpv4: '81.2.69.142',
    });
    expect(parseIpAddress('0:0:0:0:0:ffff:5102:458e').address).to.equal('::ffff:81.2.69.142');
  });

  it('reads a dotted IPv4 tail as the IPv6 address it spells, not as an IPv4-mapped one', () => {
    expect(parseIpAddress('::8.8.8.8')).to.deep.equal({ address: '::808:808', version: 6, mappedIpv4: null });
    expect(parseIpAddress('::0.0.0.1').address).to.equal('::1');
    expect(parseIpAddress('2001:db8::192.0.2.1').address).to.equal('2001:db8::c000:201');
    expect(parseIpAddress('::ffff:0:1.2.3.4').address).to.equal('::ffff:0:102:304');
  });

  for (const [name, input] of BAD_IPS) {
    it(`refuses ${name} with ERR_LOOKUP_INVALID_IP and a sentence`, () => {
      let caught: unknown;
      try {
        parseIpAddress(input);
      } catch (error) {
        caught = error;
      }
      expect(isDossierError(caught, 'ERR_LOOKUP_INVALID_IP'), String(caught)).to.equal(true);
      expect((caught as Error).message).to.match(/^[A-Z].*\.$/);
    });
  }

  it('says what is wrong', () => {
    const message = (input: unknown): string => {
      try {
        parseIpAddress(input);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message('127.1')).to.match(/four decimal numbers/);
    expect(message('8.8.8.8:53')).to.match(/port/);
    expect(message('fe80::1%eth0')).to.match(/zone/);
    expect(message('[::1]')).to.match(/brackets/);
    expect(message(['a', 'b'])).to.match(/once/);
    expect(message('')).to.match(/required/);
  });
});

describe('specialRangeOf', () => {
  const cases: [string, string | null][] = [
    ['10.1.2.3', '10.0.0.0/8'],
    ['172.20.0.1', '172.16.0.0/12'],
    ['192.168.1.1', '192.168.0.0/16'],
    ['127.0.0.1', '127.0.0.0/8'],
    ['100.64.0.1', '100.64.0.0/10'],
    ['169.254.169.254', '169.254.169.254/32'],
    ['169.254.1.1', '169.254.0.0/16'],
    ['192.0.2.7', '192.0.2.0/24'],
    ['224.0.0.251', '224.0.0.0/4'],
    ['0.0.0.0', '0.0.0.0/8'],
    ['::1', '::1/128'],
    ['::', '::/128'],
    ['fe80::1', 'fe80::/10'],
    ['fd12:3456::1', 'fc00::/7'],
    ['ff02::1', 'ff00::/8'],
    ['2001:db8::1', '2001:db8::/32'],
    ['::ffff:10.1.2.3', '::ffff:10.0.0.0/104'],
    ['64:ff9b::7f00:1', '64:ff9b::7f00:0/104'],
    ['2002:c0a8:101::', '2002:c0a8::/32'],
    ['::ffff:0:a01:203', '::ffff:0:a00:0/104'],
    ['64:ff9b:1::808:808', '64:ff9b:1::/48'],
    ['2001::1', '2001::/32'],
    ['4000::1', '4000::/2'],
    ['255.255.255.255', '255.255.255.255/32'],
    ['100.100.100.200', '100.100.100.200/32'],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
    ['8.8.8.8', null],
    ['2a02:cf40::1', null],
  ];
  for (const [address, range] of cases) {
    it(`puts ${address} in ${String(range)}`, () => {
      expect(specialRangeOf(address)?.network ?? null).to.equal(range);
    });
  }

  it('judges an address the same however its IPv4 tail is spelled', () => {
    expect(specialRangeOf('::8.8.8.8')).to.deep.equal(specialRangeOf('::808:808'));
    expect(specialRangeOf('::0.0.0.1')).to.deep.equal(specialRangeOf('::1'));
    expect(specialRangeOf('::ffff:10.1.2.3')).to.deep.equal(specialRangeOf('::ffff:a01:203'));
  });

  it('names the range and where it is defined', () => {
    expect(specialRangeOf('10.1.2.3')).to.deep.equal({ network: '10.0.0.0/8', name: 'private', reference: 'RFC 1918' });
    expect(specialRangeOf('::ffff:127.0.0.1')).to.deep.include({
      network: '::ffff:127.0.0.0/104',
      name: 'loopback (IPv4-mapped)',
    });
    expect(specialRangeOf('168.63.129.16')).to.deep.include({
      network: '168.63.129.16/32',
      name: 'cloud metadata (Azure WireServer)',
    });
  });

  it('throws for text node:net does not take as an address', () => {
    for (const text of ['127.1', '0x7f.1', 'example.com', '[::1]', '', 'fe80::1%eth0']) {
      expect(() => specialRangeOf(text), text).to.throw(TypeError);
    }
  });
});
