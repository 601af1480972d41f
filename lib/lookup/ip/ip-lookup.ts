import ipaddr from 'ipaddr.js';
import { DossierError } from '../../errors.js';
import type { IpData, Lookup } from '../../ports/lookup-service.js';
import { GeoipDatabase, type GeoipMatch, type GeoipReader } from './geoip.js';
import { parseIpAddress, type ParsedIpAddress } from '../net/ip-address.js';
import { withTimeout } from '../net/abort.js';
import type { LookupContext } from '../net/lookup-context.js';
import { withOwnResolver } from '../net/reach.js';
import { specialRangeOf, type SpecialRange } from '../net/special-range.js';

/** Settings of {@link IpLookup}. */
export interface IpLookupOptions {
  /** The lookup's deadline in milliseconds, of which the reverse-DNS question may take a share. */
  timeoutMs: number;
  /** Path to a MaxMind City database (`DOSSIER_GEOIP_CITY`). @default undefined */
  geoipCity?: string;
  /** Path to a MaxMind ASN or ISP database (`DOSSIER_GEOIP_ASN`). @default undefined */
  geoipAsn?: string;
}

/** How long IP answers are cached: a full answer, and one whose reverse DNS failed (to ask again soon). */
export const IP_CACHE_SECONDS = { answer: 3600, dnsFailed: 60 } as const;

/** Share of the lookup deadline the reverse-DNS question may take before it is given up (hostname null). */
const REVERSE_DNS_SHARE = 0.75;

/** Codes of `node:dns` that mean "this address has no name", not a failure. */
const NO_NAME = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * `GET /api/ip`: reverse DNS through Dossier's own resolver, location from a MaxMind City database and
 * network owner from an ASN (or ISP) database, each optional, opened in the background as soon as the
 * lookup is built. An address in a special range ({@link specialRangeOf}: private, reserved, cloud
 * metadata, …) is answered with `isPrivate: true` without asking anyone (the databases are local files,
 * so they are still read), and that range as `network` when no database has one. A reverse-DNS
 * failure does not fail the lookup: the location is the substance of the answer, so `hostname` is
 * `null` and the answer is cached only briefly.
 */
export class IpLookup implements Lookup<'ip'> {
  readonly kind = 'ip' as const;
  private readonly city: GeoipDatabase | undefined;
  private readonly asn: GeoipDatabase | undefined;

  /** @param context the resolver of the reverse-DNS question, and the logger and clock of the databases. */
  constructor(
    private readonly context: Pick<LookupContext, 'createResolver' | 'clock' | 'logger'>,
    private readonly options: IpLookupOptions,
  ) {
    const { logger, clock } = context;
    const open = (path: string | undefined, label: string, setting: string): GeoipDatabase | undefined =>
      path === undefined ? undefined : new GeoipDatabase({ path, label, setting, logger, clock });
    this.city = open(options.geoipCity, 'City', 'DOSSIER_GEOIP_CITY');
    this.asn = open(options.geoipAsn, 'ASN', 'DOSSIER_GEOIP_ASN');
    // Open the files now, not inside the first request, so that no request waits for a whole file's check.
    this.city?.preload();
    this.asn?.preload();
  }

  /**
   * Waits for the configured GeoIP files to be open (the opening started by the constructor) and checks
   * that each is a database of its kind.
   * @throws DossierError `ERR_CONFIG_INVALID` naming the setting of a file that is not.
   */
  async ready(): Promise<void> {
    await Promise.all([this.city?.check(), this.asn?.check()]);
  }

  parse(input: unknown): string {
    return parseIpAddress(input).address;
  }

  async run(target: string, signal: AbortSignal): Promise<{ data: IpData; ttlSeconds: number }> {
    const address = parseIpAddress(target);
    const special = specialRangeOf(address.address);
    // An IPv4-mapped address has the PTR name of the IPv4 address it carries, as its location does.
    const hostname =
      special === null
        ? this.reverse(address.mappedIpv4 ?? address.address, signal)
        : Promise.resolve({ name: null, failed: false });
    // Settle the reverse-DNS question even when a database fails, so its resolver is never left behind.
    const [name, cityMatch, asnMatch] = await Promise.all([hostname, find(this.city, address), find(this.asn, address)]).catch(
      async (error: unknown) => {
        await hostname;
        throw error;
      },
    );
    const data = toIpData(address, special, name.name, cityMatch, asnMatch);
    return { data, ttlSeconds: name.failed ? IP_CACHE_SECONDS.dnsFailed : IP_CACHE_SECONDS.answer };
  }

  /** The first PTR name of `address`; `failed` when the DNS gave no answer (as opposed to no name). */
  private reverse(address: string, signal: AbortSignal): Promise<{ name: string | null; failed: boolean }> {
    const budget = withTimeout(signal, this.options.timeoutMs * REVERSE_DNS_SHARE);
    return withOwnResolver(this.context.createResolver, budget, async (resolver) => {
      try {
        const names = await resolver.reverse(address);
        const first = names.find((name) => typeof name === 'string' && name !== '');
        return { name: first ?? null, failed: false };
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        return { name: null, failed: !(typeof code === 'string' && NO_NAME.has(code)) };
      }
    });
  }
}

async function find(database: GeoipDatabase | undefined, address: ParsedIpAddress): Promise<Found | null> {
  if (database === undefined) return null;
  const reader = await database.reader();
  // An IPv4-mapped address is looked up as the IPv4 address it carries, whatever the tree holds at ::ffff:0:0/96.
  const key = address.mappedIpv4 ?? address.address;
  let match: GeoipMatch | null;
  try {
    match = reader.find(key);
  } catch (error) {
    throw new DossierError('ERR_UPSTREAM_FAILED', `The IP location database could not be read for ${address.address}.`, {
      cause: error,
    });
  }
  return match && { ...match, reader, network: networkOf(key, match.prefixLength, address.mappedIpv4 !== null) };
}

interface Found extends GeoipMatch {
  reader: GeoipReader;
  /** The CIDR of the matching record, in the form of the address asked (IPv6 for an IPv4-mapped one). */
  network: string;
}

function networkOf(key: string, prefixLength: number, mapped: boolean): string {
  if (!key.includes(':')) {
    const network = ipaddr.IPv4.networkAddressFromCIDR(`${key}/${prefixLength}`).toString();
    return mapped ? `::ffff:${network}/${96 + prefixLength}` : `${network}/${prefixLength}`;
  }
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${key}/${prefixLength}`).toRFC5952String()}/${prefixLength}`;
}

function toIpData(
  address: ParsedIpAddress,
  special: SpecialRange | null,
  hostname: string | null,
  city: Found | null,
  asn: Found | null,
): IpData {
  const c = city?.record;
  const a = asn?.record;
  const location = at(c, 'location');
  const subdivision = at(c, 'subdivisions', 0);
  const isIspDatabase = asn !== null && /\bISP\b/i.test(asn.reader.databaseType);
  return {
    ip: address.address,
    version: address.version,
    hostname,
    isPrivate: special !== null,
    city: text(at(c, 'city', 'names', 'en')),
    region: text(at(subdivision, 'names', 'en')),
    regionCode: text(at(subdivision, 'iso_code')),
    country: text(at(c, 'country', 'names', 'en')),
    countryCode: text(at(c, 'country', 'iso_code')),
    continent: text(at(c, 'continent', 'names', 'en')),
    continentCode: text(at(c, 'continent', 'code')),
    postalCode: text(at(c, 'postal', 'code')),
    latitude: number(at(location, 'latitude'), 90),
    longitude: number(at(location, 'longitude'), 180),
    accuracyRadius: number(at(location, 'accuracy_radius')),
    timezone: text(at(location, 'time_zone')),
    asn: number(at(a, 'autonomous_system_number')) ?? number(at(c, 'traits', 'autonomous_system_number')),
    organization: text(at(a, 'autonomous_system_organization')) ?? text(at(c, 'traits', 'autonomous_system_organization')),
    isp: (isIspDatabase ? text(at(a, 'isp')) : null) ?? text(at(c, 'traits', 'isp')),
    network: asn?.network ?? city?.network ?? special?.network ?? null,
  };
}

/** The value at `path` inside a decoded record, or `undefined` when the record has no such shape. */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const step of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (typeof step === 'number') current = Array.isArray(current) ? (current[step] as unknown) : undefined;
    else current = Object.hasOwn(current, step) ? (current as Record<string, unknown>)[step] : undefined;
  }
  return current;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function number(value: unknown, magnitude = Number.MAX_SAFE_INTEGER): number | null {
  if (typeof value === 'bigint') return value <= BigInt(magnitude) ? Number(value) : null;
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= magnitude ? value : null;
}
