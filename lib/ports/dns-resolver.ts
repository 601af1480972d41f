import type { MxRecord, RecordWithTtl, SoaRecord } from 'node:dns';

/**
 * The DNS client the lookups use: the subset of `node:dns/promises` `Resolver` they call. Errors carry
 * the `node:dns` codes (`ENOTFOUND`, `ENODATA`, `ETIMEOUT`, …).
 */
export interface DnsResolver {
  /** A records with their TTLs. */
  resolve4(hostname: string, options: { ttl: true }): Promise<RecordWithTtl[]>;
  /** AAAA records with their TTLs. */
  resolve6(hostname: string, options: { ttl: true }): Promise<RecordWithTtl[]>;
  /** MX records. */
  resolveMx(hostname: string): Promise<MxRecord[]>;
  /** NS records. */
  resolveNs(hostname: string): Promise<string[]>;
  /** TXT records, each as its character-strings. */
  resolveTxt(hostname: string): Promise<string[][]>;
  /** CNAME records. */
  resolveCname(hostname: string): Promise<string[]>;
  /** The SOA record. */
  resolveSoa(hostname: string): Promise<SoaRecord>;
  /** PTR names of an address. */
  reverse(ip: string): Promise<string[]>;
  /** Cancels every query under way; they reject with `ECANCELLED`. */
  cancel(): void;
}
