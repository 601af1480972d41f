import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { parseIp } from './ip-address.js';

/** A range of addresses lookups never connect to, as {@link specialRangeOf} reports it. */
export interface SpecialRange {
  /** The range as CIDR, in the family of the address asked: `10.0.0.0/8`, `fc00::/7`, `::ffff:10.0.0.0/104`. */
  network: string;
  /** What the range is: `private`, `loopback`, `cloud metadata (Azure WireServer)`, … */
  name: string;
  /** Where the range is defined: an RFC, or the cloud provider's documentation. */
  reference: string;
}

interface RangeEntry {
  cidr: string;
  name: string;
  reference: string;
  /** For an IPv6 range that carries an IPv4 address: the bit at which it starts. */
  ipv4At?: number;
}

/**
 * Every range that is not a public connection target, after the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries. A range inside another (the metadata hosts, `::1` in `::/3`) is listed for its
 * more precise name; the longest match wins. An IPv6 range with `ipv4At` is judged by the IPv4 address
 * it carries instead: only the ones where that address is the real destination are listed so.
 */
const RANGES: readonly RangeEntry[] = [
  { cidr: '0.0.0.0/8', name: 'this network', reference: 'RFC 791, RFC 1122' },
  { cidr: '10.0.0.0/8', name: 'private', reference: 'RFC 1918' },
  { cidr: '100.64.0.0/10', name: 'carrier-grade NAT', reference: 'RFC 6598' },
  { cidr: '127.0.0.0/8', name: 'loopback', reference: 'RFC 1122' },
  { cidr: '169.254.0.0/16', name: 'link-local', reference: 'RFC 3927' },
  { cidr: '172.16.0.0/12', name: 'private', reference: 'RFC 1918' },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments', reference: 'RFC 6890' },
  { cidr: '192.0.2.0/24', name: 'documentation (TEST-NET-1)', reference: 'RFC 5737' },
  { cidr: '192.31.196.0/24', name: 'AS112', reference: 'RFC 7535' },
  { cidr: '192.52.193.0/24', name: 'AMT', reference: 'RFC 7450' },
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast', reference: 'RFC 7526' },
  { cidr: '192.168.0.0/16', name: 'private', reference: 'RFC 1918' },
  { cidr: '192.175.48.0/24', name: 'AS112', reference: 'RFC 7534' },
  { cidr: '198.18.0.0/15', name: 'benchmarking', reference: 'RFC 2544' },
  { cidr: '198.51.100.0/24', name: 'documentation (TEST-NET-2)', reference: 'RFC 5737' },
  { cidr: '203.0.113.0/24', name: 'documentation (TEST-NET-3)', reference: 'RFC 5737' },
  { cidr: '224.0.0.0/4', name: 'multicast', reference: 'RFC 5771' },
  { cidr: '240.0.0.0/4', name: 'reserved', reference: 'RFC 1112' },
  { cidr: '255.255.255.255/32', name: 'limited broadcast', reference: 'RFC 919, RFC 8190' },

  { cidr: '::/128', name: 'unspecified', reference: 'RFC 4291' },
  { cidr: '::1/128', name: 'loopback', reference: 'RFC 4291' },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', reference: 'RFC 4291', ipv4At: 96 },
  { cidr: '::ffff:0:0:0/96', name: 'IPv4-translated', reference: 'RFC 6145', ipv4At: 96 },
  { cidr: '64:ff9b::/96', name: 'NAT64 well-known prefix', reference: 'RFC 6052', ipv4At: 96 },
  // The IPv4 address inside a local-use prefix goes wherever the operator's translator sends it.
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64', reference: 'RFC 8215' },
  { cidr: '100::/64', name: 'discard-only', reference: 'RFC 6666' },
  { cidr: '2001::/23', name: 'IETF protocol assignments', reference: 'RFC 2928' },
  // Teredo obfuscates the client address and relays through a server: nothing to judge by.
  { cidr: '2001::/32', name: 'Teredo', reference: 'RFC 4380' },
  { cidr: '2001:2::/48', name: 'benchmarking', reference: 'RFC 5180' },
  { cidr: '2001:db8::/32', name: 'documentation', reference: 'RFC 3849' },
  { cidr: '2002::/16', name: '6to4', reference: 'RFC 3056', ipv4At: 16 },
  { cidr: '2620:4f:8000::/48', name: 'AS112', reference: 'RFC 7534' },
  { cidr: '3fff::/20', name: 'documentation', reference: 'RFC 9637' },
  { cidr: '5f00::/16', name: 'segment routing (SRv6) SIDs', reference: 'RFC 9602' },
  { cidr: 'fc00::/7', name: 'unique local', reference: 'RFC 4193' },
  { cidr: 'fe80::/10', name: 'link-local', reference: 'RFC 4291' },
  { cidr: 'fec0::/10', name: 'deprecated site-local', reference: 'RFC 3879' },
  { cidr: 'ff00::/8', name: 'multicast', reference: 'RFC 4291' },
  // Everything outside global unicast 2000::/3 (RFC 4291 §2.4), as three blocks: ::/3, 4000::/2, 8000::/1.
  { cidr: '::/3', name: 'outside IPv6 global unicast', reference: 'RFC 4291' },
  { cidr: '4000::/2', name: 'outside IPv6 global unicast', reference: 'RFC 4291' },
  { cidr: '8000::/1', name: 'outside IPv6 global unicast', reference: 'RFC 4291' },

  // Cloud metadata and platform services at addresses that look public, or named inside a range above.
  { cidr: '168.63.129.16/32', name: 'cloud metadata (Azure WireServer)', reference: 'Azure: what is IP address 168.63.129.16' },
  { cidr: '169.254.169.254/32', name: 'cloud metadata (AWS, GCP, Azure, OCI IMDS)', reference: 'cloud providers' },
  { cidr: '169.254.170.2/32', name: 'cloud metadata (AWS ECS task metadata)', reference: 'AWS ECS' },
  { cidr: '100.100.100.200/32', name: 'cloud metadata (Alibaba Cloud)', reference: 'Alibaba Cloud ECS metadata' },
  { cidr: 'fd00:ec2::254/128', name: 'cloud metadata (AWS IMDS over IPv6)', reference: 'AWS EC2 IMDS' },
  { cidr: 'fd20:ce::254/128', name: 'cloud metadata (GCP over IPv6)', reference: 'GCP metadata server' },
];

type Parsed<T> = { range: [T, number]; entry: RangeEntry };

const V4: Parsed<ipaddr.IPv4>[] = [];
const V6: Parsed<ipaddr.IPv6>[] = [];
for (const entry of RANGES) {
  const range = ipaddr.parseCIDR(entry.cidr);
  if (range[0].kind() === 'ipv4') V4.push({ range: range as [ipaddr.IPv4, number], entry });
  else V6.push({ range: range as [ipaddr.IPv6, number], entry });
}

/**
 * The range an address falls in when it is not a public connection target: loopback, private,
 * link-local, CGNAT, reserved, documentation, benchmarking, multicast, broadcast, unique-local, outside
 * IPv6 global unicast, cloud metadata. An IPv6 address that carries an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by that IPv4 address, and a special
 * one gives the IPv6 form of its range (`::ffff:10.0.0.0/104`, `2002:a00::/24`). `null` for a public
 * address. This table is the one place that decides; {@link isPublicAddress} reads it.
 * @throws TypeError when `address` is not an address `node:net` accepts, or carries a zone index.
 */
export function specialRangeOf(address: string): SpecialRange | null {
  if (isIP(address) === 0 || address.includes('%')) throw new TypeError(`not an IP address: ${JSON.stringify(address)}`);
  const parsed = parseIp(address);
  if (parsed.kind() === 'ipv4') return describe(longestMatch(parsed as ipaddr.IPv4, V4), (network) => network.toString());
  const v6 = parsed as ipaddr.IPv6;
  const match = longestMatch(v6, V6);
  const ipv4At = match?.entry.ipv4At;
  if (match === null || ipv4At === undefined) return describe(match, (network) => network.toRFC5952String());

  const inner = longestMatch(embeddedIpv4(v6, ipv4At), V4);
  if (inner === null) return null;
  const bits = ipv4At + inner.range[1];
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${v6.toNormalizedString()}/${bits}`);
  // RFC 5952 §5: IPv4-mapped addresses are written with the IPv4 part in dotted decimal.
  const text = network.isIPv4MappedAddress() ? `::ffff:${network.toIPv4Address().toString()}` : network.toRFC5952String();
  return { network: `${text}/${bits}`, name: `${inner.entry.name} (${match.entry.name})`, reference: inner.entry.reference };
}

/**
 * Whether `address` is a public unicast address that lookups may connect to: one in no range of
 * {@link specialRangeOf}. False for anything `node:net` does not accept as an IP address (`127.1`,
 * `0x7f.1`, names, brackets) and for an address with a zone index.
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0 || address.includes('%')) return false;
  return specialRangeOf(address) === null;
}

/** The IPv4 address an IPv6 address carries from bit `at` (96 for IPv4-mapped and NAT64, 16 for 6to4). */
function embeddedIpv4(address: ipaddr.IPv6, at: number): ipaddr.IPv4 {
  return new ipaddr.IPv4(address.toByteArray().slice(at / 8, at / 8 + 4));
}

function longestMatch<T extends ipaddr.IPv4 | ipaddr.IPv6>(address: T, table: Parsed<T>[]): Parsed<T> | null {
  let best: Parsed<T> | null = null;
  for (const candidate of table) {
    if (address.match(candidate.range) && (best === null || candidate.range[1] > best.range[1])) best = candidate;
  }
  return best;
}

function describe<T extends ipaddr.IPv4 | ipaddr.IPv6>(
  match: Parsed<T> | null,
  format: (network: T) => string,
): SpecialRange | null {
  if (match === null) return null;
  const [network, bits] = match.range;
  return { network: `${format(network)}/${bits}`, name: match.entry.name, reference: match.entry.reference };
}
