import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { canonicalText, parseIp } from './ip-address.js';
import specialRanges from './special-ranges.json' with { type: 'json' };

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
  /** Why the entry is as it is (JSON has no comments); not read. */
  comment?: string;
}

/**
 * Every range that is not a public connection target, after the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries, kept as data in `special-ranges.json` (a `comment` there says why an entry is as
 * it is). A range inside another (the metadata hosts, `::1` in `::/3`) is listed for its more precise
 * name; the longest match wins. An IPv6 range with `ipv4At` is judged by the IPv4 address it carries
 * instead: only the ones where that address is the real destination are listed so.
 */
const RANGES: readonly RangeEntry[] = specialRanges.ranges;

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
  if (parsed.kind() === 'ipv4') return describe(longestMatch(parsed as ipaddr.IPv4, V4));
  const v6 = parsed as ipaddr.IPv6;
  const match = longestMatch(v6, V6);
  const ipv4At = match?.entry.ipv4At;
  if (match === null || ipv4At === undefined) return describe(match);

  const inner = longestMatch(embeddedIpv4(v6, ipv4At), V4);
  if (inner === null) return null;
  const bits = ipv4At + inner.range[1];
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${v6.toNormalizedString()}/${bits}`);
  const cidr = `${canonicalText(network)}/${bits}`;
  return { network: cidr, name: `${inner.entry.name} (${match.entry.name})`, reference: inner.entry.reference };
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

function describe(match: Parsed<ipaddr.IPv4 | ipaddr.IPv6> | null): SpecialRange | null {
  if (match === null) return null;
  const [network, bits] = match.range;
  return { network: `${canonicalText(network)}/${bits}`, name: match.entry.name, reference: match.entry.reference };
}
