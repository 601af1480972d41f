import ipaddr from 'ipaddr.js';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import { DossierError } from '../../errors.js';

/** An IP address as the IP lookup works with it. */
export interface ParsedIpAddress {
  /** The canonical text form: see {@link canonicalIpAddress}. */
  address: string;
  /** 4 or 6. */
  version: 4 | 6;
  /** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) carries; `null` for any other. */
  mappedIpv4: string | null;
}

/** The longest text form of an IP address (`ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`). */
const MAX_ADDRESS_LENGTH = 45;

/**
 * Checks the `ip` parameter of a lookup and returns its canonical form: an IPv4 address as four decimal
 * numbers, an IPv6 address compressed in lower case (RFC 5952), an IPv4-mapped IPv6 address kept as
 * IPv6 in the mixed notation RFC 5952 §5 recommends (`::ffff:1.2.3.4`). Refuses, with a sentence that
 * says why, anything else: other IPv4 spellings (`127.1`, `0x7f.0.0.1`, octal, leading zeros), a port,
 * brackets, a zone index, a prefix length, a URL, a name, whitespace, control or full-width characters,
 * an empty or repeated parameter.
 * @throws DossierError `ERR_LOOKUP_INVALID_IP`
 */
export function parseIpAddress(input: unknown): ParsedIpAddress {
  if (Array.isArray(input)) throw invalid('Give the ip parameter once.');
  if (typeof input !== 'string' || input.length === 0) throw invalid('The ip parameter is required.');
  if (input.length > MAX_ADDRESS_LENGTH) throw invalid(`An IP address has at most ${MAX_ADDRESS_LENGTH} characters.`);
  if (/[\s\u0000-\u001f\u007f-\u009f\u200b-\u200d\u2028\u2029\ufeff]/.test(input)) {
    throw invalid('An IP address has no whitespace or control characters.');
  }
  if (/[^\u0000-\u007f]/.test(input))
    throw invalid('An IP address is written in ASCII digits, letters a-f, dots and colons only.');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) throw invalid('Give an IP address, not a URL.');
  if (input.includes('/')) throw invalid('Give one IP address, without a prefix length or path.');
  if (input.includes('%')) throw invalid('Give an IP address without a zone index (%…) or percent-encoding.');
  if (input.includes('[') || input.includes(']')) throw invalid('Give an IPv6 address without brackets or port.');

  if (!input.includes(':')) {
    if (isIPv4(input)) return { address: input, version: 4, mappedIpv4: null };
    if (/^[0-9a-fx.]+$/i.test(input) && /\d/.test(input)) {
      throw invalid('Give an IPv4 address as four decimal numbers from 0 to 255 without leading zeros, like 192.0.2.1.');
    }
    throw invalid('Give an IP address, not a domain name or other text.');
  }
  if (/^[\d.]+:\d*$/.test(input)) throw invalid('Give an IP address without a port.');
  if (!isIPv6(input)) throw invalid('This is not a valid IPv6 address.');
  const address = parseIp(input) as ipaddr.IPv6;
  const mappedIpv4 = address.isIPv4MappedAddress() ? address.toIPv4Address().toString() : null;
  return { address: canonicalText(address), version: 6, mappedIpv4 };
}

/**
 * Parses an address `node:net` accepts. ipaddr.js alone reads an IPv4-compatible address (`::1.2.3.4`)
 * as the IPv4-mapped `::ffff:1.2.3.4`, another address: so a dotted IPv4 tail is first spelled in hex.
 */
export function parseIp(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const tail = address.includes(':') ? /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address) : null;
  if (tail === null) return ipaddr.parse(address);
  const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
  return ipaddr.parse(`${address.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
}

/**
 * The canonical text of an address `node:net` accepts: IPv4 in dotted decimal, IPv6 compressed in lower
 * case (RFC 5952), an IPv4-mapped one in the mixed notation of RFC 5952 §5 (`::ffff:1.2.3.4`). Any other
 * text is returned as it is.
 */
export function canonicalIpText(address: string): string {
  return isIP(address) === 0 ? address : canonicalText(parseIp(address));
}

/** {@link canonicalIpText} of a parsed address. */
export function canonicalText(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toRFC5952String();
}

function invalid(message: string): DossierError {
  return new DossierError('ERR_LOOKUP_INVALID_IP', message);
}
