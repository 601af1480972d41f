/** The record types the DNS message client is asked for. */
export type DnsMessageType = 'SOA' | 'DNSKEY' | 'DS' | 'CAA' | 'TXT';

/** One record of an answer, decoded; records of other types than these are left out. */
export type DnsMessageRecord =
  | { name: string; type: 'SOA'; ttl: number; data: { mname: string; rname: string } }
  | { name: string; type: 'DNSKEY'; ttl: number; data: { flags: number; algorithm: number } }
  | { name: string; type: 'DS'; ttl: number; data: { keyTag: number; algorithm: number; digestType: number } }
  | { name: string; type: 'CAA'; ttl: number; data: { critical: boolean; tag: string; value: string } }
  | { name: string; type: 'TXT'; ttl: number; data: string[] }
  | { name: string; type: 'CNAME'; ttl: number; data: string };

/** A DNS answer at the message level: what `node:dns` does not show (the AD flag, the authority section). */
export interface DnsMessageAnswer {
  /** `NOERROR` or `NXDOMAIN` (other codes are errors). */
  rcode: 'NOERROR' | 'NXDOMAIN';
  /** The AD (authentic data) flag of the answer: the resolver validated it with DNSSEC. */
  authenticated: boolean;
  /** The answer section (RRSIGs and unknown types left out), names lower case without the final dot. */
  answers: DnsMessageRecord[];
  /** The authority section, the same way (where a NODATA or NXDOMAIN answer names its zone's SOA). */
  authorities: DnsMessageRecord[];
}

/**
 * A DNS client that reads whole messages: it asks with recursion desired, the AD bit and the EDNS DO
 * bit, over UDP and again over TCP when the answer is truncated.
 */
export interface DnsMessageClient {
  /**
   * Asks one question of the configured DNS servers, trying the next one when a server fails.
   * @throws DossierError `ERR_UPSTREAM_TIMEOUT` when no server answered in time, `ERR_UPSTREAM_FAILED`
   *   when they answered with an error code (SERVFAIL, REFUSED, …) or not at all; when `signal` aborts,
   *   its reason if that is a `DossierError`, else `ERR_UPSTREAM_TIMEOUT`.
   */
  query(name: string, type: DnsMessageType, signal: AbortSignal): Promise<DnsMessageAnswer>;
}
