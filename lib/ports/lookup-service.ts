import type { Logger } from './logger.js';

/** The four lookups of interface A, in the order they are listed (a tuple, so that the type below follows it). */
export const LOOKUP_KINDS = ['dns', 'whois', 'ip', 'ssl'] as const;

/** One of the four lookups. */
export type LookupKind = (typeof LOOKUP_KINDS)[number];

/** A lookup's answer and whether it came from the cache. */
export interface LookupResult<T = unknown> {
  /**
   * The record (docs/contract.md §2) under the library's names: camelCase, as everything the library returns;
   * the HTTP adapters make the wire's snake_case.
   */
  data: T;
  /** True when the answer came from the cache. */
  cached: boolean;
}

/** `GET /api/dns` data. */
export interface DnsData {
  domain: string;
  exists: boolean;
  A: { address: string; ttl: number }[];
  AAAA: { address: string; ttl: number }[];
  MX: { exchange: string; priority: number }[];
  NS: string[];
  TXT: string[];
  CNAME: string[];
  SOA: {
    nsname: string;
    hostmaster: string;
    serial: number;
    refresh: number;
    retry: number;
    expire: number;
    minttl: number;
  } | null;
  /** The name's CAA records (RFC 8659), `critical` being the issuer-critical flag. */
  CAA: CaaRecord[];
  /** Whether the name's zone is signed, and whether the resolver validated the answer. */
  dnssec: DnssecStatus;
  /** SPF and DMARC, read from the TXT records of the name and of `_dmarc.<name>`. */
  mail: MailPolicy;
}

/** One CAA record of `GET /api/dns`. */
export interface CaaRecord {
  critical: boolean;
  tag: string;
  value: string;
}

/** `dnssec` of `GET /api/dns`. */
export interface DnssecStatus {
  /** The zone publishes DNSKEY records and its parent a DS for it (both asked for). */
  signed: boolean;
  /** The resolver set the AD flag on its answer; `null` when the resolver does not validate. */
  validated: boolean | null;
}

/** `mail` of `GET /api/dns`. */
export interface MailPolicy {
  /** The one `v=spf1` TXT record of the name; `null` when it has none or several. */
  spf: string | null;
  /** The one `v=DMARC1` TXT record of `_dmarc.<name>`; `null` when it has none or several. */
  dmarc: DmarcPolicy | null;
}

/** The DMARC record of a name and its policy. */
export interface DmarcPolicy {
  /** `none`, `quarantine` or `reject`; `null` when the record names none usable. */
  policy: string | null;
  record: string;
}

/** The holder of a domain, as far as a registry publishes it. */
export interface WhoisRegistrant {
  organization: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string | null;
}

/** A whois answer: `GET /api/whois`'s data, in camelCase. */
export interface WhoisData {
  domain: string;
  registered: boolean;
  registrar: string | null;
  registrarUrl: string | null;
  registrarIanaId: string | null;
  /** The registrar's abuse contact (docs/contract.md §10); null when unpublished or a placeholder. */
  registrarAbuseEmail: string | null;
  /** Who holds the domain, where the registry publishes it; each field null when it does not or redacts it. */
  registrant: WhoisRegistrant;
  createdAt: string | null;
  updatedAt: string | null;
  expiresAt: string | null;
  nameServers: string[];
  status: string[];
  dnssec: boolean | null;
  whoisServer: string | null;
  source: 'rdap' | 'whois';
  raw: string | null;
}

/** An IP answer: `GET /api/ip`'s data, in camelCase. */
export interface IpData {
  ip: string;
  version: 4 | 6;
  hostname: string | null;
  isPrivate: boolean;
  city: string | null;
  region: string | null;
  regionCode: string | null;
  country: string | null;
  countryCode: string | null;
  continent: string | null;
  continentCode: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracyRadius: number | null;
  timezone: string | null;
  asn: number | null;
  organization: string | null;
  isp: string | null;
  network: string | null;
}

/** A distinguished name by its short attribute names (`CN`, `O`, `C`, …). */
export type DistinguishedName = Record<string, string | string[]>;

/** One certificate of the chain the peer sent. */
export interface ChainCertificate {
  subject: DistinguishedName;
  issuer: DistinguishedName;
  validFrom: string;
  validTo: string;
  fingerprintSha256: string;
  /** Whole days until `validTo`, negative once it has passed. */
  daysRemaining: number;
}

/** The certificate of the chain that expires first (docs/contract.md §8). */
export type ExpiresFirst = Pick<ChainCertificate, 'subject' | 'validTo' | 'daysRemaining'>;

/** An SSL answer: `GET /api/ssl`'s data, in camelCase. */
export interface SslData {
  domain: string;
  subject: DistinguishedName;
  issuer: DistinguishedName;
  validFrom: string;
  validTo: string;
  daysRemaining: number;
  isValid: boolean;
  authorizationError: string | null;
  hostnameMatches: boolean;
  subjectAltNames: string[];
  serialNumber: string;
  fingerprintSha256: string;
  signatureAlgorithm: string | null;
  publicKey: { type: string; bits: number | null; curve: string | null };
  protocol: string | null;
  cipher: string | null;
  chain: ChainCertificate[];
  /** The certificate of `chain` whose `validTo` comes first (the nearest to the leaf on a tie). */
  expiresFirst: ExpiresFirst;
}

/** The data of each lookup kind. */
export interface LookupDataByKind {
  dns: DnsData;
  whois: WhoisData;
  ip: IpData;
  ssl: SslData;
}

/**
 * One lookup of interface A: how its query is checked and how it is answered. The lookup service adds
 * the cache, the deadline and the sharing of identical concurrent lookups.
 */
export interface Lookup<K extends LookupKind = LookupKind> {
  /** Which lookup this is. */
  readonly kind: K;
  /**
   * Checks and normalizes the raw query parameter without any I/O.
   * @throws DossierError `ERR_LOOKUP_INVALID_DOMAIN` or `ERR_LOOKUP_INVALID_IP`.
   */
  parse(input: unknown): string;
  /**
   * Answers for a parsed target. Must stop all I/O (close sockets) when `signal` aborts.
   * `ttlSeconds` says how long the answer may be cached (0: not at all). What it logs goes to `logger`
   * when given (the logger of the request that asked, whose lines name it).
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`.
   */
  run(target: string, signal: AbortSignal, logger?: Logger): Promise<{ data: LookupDataByKind[K]; ttlSeconds: number }>;
}

/** How one lookup is asked. */
export interface LookupOptions {
  /**
   * Skip the cache for this lookup: upstream is asked even when an answer is cached, and its answer
   * replaces the cached one (`fresh=1`, docs/contract.md §8). @default false
   */
  fresh?: boolean;
  /**
   * Where the lines this lookup causes go: the asking request's logger, which names the request on
   * each of them. @default the Dossier's logger
   */
  logger?: Logger;
}

/** Interface A: the four lookups, with cache and deadline. */
export interface LookupService {
  /**
   * Checks and normalizes a query without any I/O, so that callers can reject bad input before
   * counting it against a quota.
   * @throws DossierError `ERR_LOOKUP_INVALID_DOMAIN` or `ERR_LOOKUP_INVALID_IP`.
   */
  parse(kind: LookupKind, input: unknown): string;
  /**
   * Answers a lookup, from the cache when it can and `options.fresh` is not set. An answer upstream
   * gives is cached for the time its lookup says; a failure is never cached.
   * @throws DossierError `ERR_LOOKUP_INVALID_*`, `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`,
   *   `ERR_UPSTREAM_TIMEOUT` (after `lookupTimeoutMs`), `ERR_NOT_IMPLEMENTED`.
   */
  lookup<K extends LookupKind>(kind: K, input: string, options?: LookupOptions): Promise<LookupResult<LookupDataByKind[K]>>;
}
