import { Reader, type Response } from 'maxmind';
import { readFile } from 'node:fs/promises';
import QuickLRU from 'quick-lru';
import { DossierError } from '../../errors.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { verifyMmdb } from './mmdb-verifier.js';

/** How long a database that failed to open is not tried again (a fixed file is picked up after this). */
export const GEOIP_RETRY_AFTER_MS = 30_000;

/** How many decoded records each reader keeps, the least recently used dropped first (records are shared by many networks). */
const DECODED_CACHE_SIZE = 10_000;

/** One record found in a database, and the network it covers. */
export interface GeoipMatch {
  /** The decoded record, as the file holds it (untrusted shape: narrow before use). */
  record: unknown;
  /** Prefix length of the network, counted in the bits of the address looked up. */
  prefixLength: number;
}

/** An open MaxMind DB. */
export interface GeoipReader {
  /** `database_type` of the metadata: `GeoIP2-City`, `GeoLite2-ASN`, `GeoIP2-ISP`, … */
  readonly databaseType: string;
  /** The record of the network holding `address` (canonical IPv4 or IPv6), or `null` when none does. */
  find(address: string): GeoipMatch | null;
}

/** Settings of {@link GeoipDatabase}. */
export interface GeoipDatabaseOptions {
  /** Path to the `.mmdb` file. */
  path: string;
  /** What the file is for, in messages: `City`, `ASN`. */
  label: string;
  /** The setting that named the file, in the log: `DOSSIER_GEOIP_CITY`. */
  setting: string;
  /** Where open failures are reported with the path (answers to clients do not carry it). */
  logger: Logger;
  /** When a failed open may be tried again. */
  clock: Clock;
}

/**
 * A MaxMind DB file, opened once (at {@link preload}, else on first use) and shared by every lookup.
 * Opening reads the file, checks it is well formed ({@link verifyMmdb}, a little at a time, so that
 * other requests are served meanwhile) and indexes it with the maxmind package's reader.
 * A file that is missing or malformed makes {@link reader} fail (and the failure is remembered for
 * {@link GEOIP_RETRY_AFTER_MS}, so a broken file is not re-read on every request).
 */
export class GeoipDatabase {
  private opening: Promise<GeoipReader> | undefined;
  private failedAt: number | undefined;

  constructor(private readonly options: GeoipDatabaseOptions) {}

  /**
   * Starts opening the file in the background, so that it is normally open before the first lookup.
   * A failure is not thrown here: it is logged, and {@link reader} reports it. Never throws.
   */
  preload(): void {
    // The handler marks the remembered promise as handled; reader() still rejects with the failure.
    this.reader().catch(() => undefined);
  }

  /**
   * The open database.
   * @throws DossierError `ERR_UPSTREAM_FAILED` when the file is missing, unreadable or malformed.
   */
  reader(): Promise<GeoipReader> {
    const now = this.options.clock.now();
    if (this.opening === undefined || (this.failedAt !== undefined && now - this.failedAt >= GEOIP_RETRY_AFTER_MS)) {
      this.failedAt = undefined;
      this.opening = openGeoipReader(this.options.path).catch((error: unknown) => {
        this.failedAt = this.options.clock.now();
        const { label, setting, path } = this.options;
        this.options.logger.error(`The GeoIP ${label} database could not be opened`, { setting, path, error: String(error) });
        throw new DossierError('ERR_UPSTREAM_FAILED', `The IP location (${label}) database is missing or damaged.`, {
          cause: error,
        });
      });
    }
    return this.opening;
  }

  /**
   * Opens the file (once: the same opening as {@link reader}'s) and checks that it is a database of
   * the kind its setting names. `dossier.ready()` calls it, so start-up refuses a file that is not.
   * @throws DossierError `ERR_CONFIG_INVALID`, naming the setting and the path, when it is not.
   */
  async check(): Promise<void> {
    const { label, setting, path } = this.options;
    let problem: string | undefined;
    try {
      const { databaseType } = await this.reader();
      const expected = DATABASE_TYPES[label as keyof typeof DATABASE_TYPES];
      if (expected !== undefined && !expected.test(databaseType))
        problem = `it is a "${databaseType}" database, not a ${label} one`;
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      problem = cause instanceof Error ? cause.message : String(cause ?? error);
    }
    if (problem !== undefined) {
      throw new DossierError(
        'ERR_CONFIG_INVALID',
        `${setting} names "${path}", which is not a usable ${label} database: ${problem}`,
      );
    }
  }
}

/** Which databases each setting takes, by the `database_type` of their metadata. */
const DATABASE_TYPES = { City: /City|Enterprise/i, ASN: /ASN|ISP/i } as const;

/**
 * Reads, checks and indexes a MaxMind DB file.
 * @throws Error when the file cannot be read or is not a well-formed MaxMind DB.
 */
export async function openGeoipReader(path: string): Promise<GeoipReader> {
  const db = await readFile(path);
  if (db[0] === 0x1f && db[1] === 0x8b) throw new Error('the file is gzip-compressed; give the .mmdb file itself');
  const reader = new Reader<Response>(db, { cache: new QuickLRU<string | number, unknown>({ maxSize: DECODED_CACHE_SIZE }) });
  const { metadata } = reader;
  if (metadata.binaryFormatMajorVersion !== 2) throw new Error(`binary format ${metadata.binaryFormatMajorVersion} is not 2`);
  if (metadata.ipVersion !== 4 && metadata.ipVersion !== 6) throw new Error(`ip_version ${metadata.ipVersion} is not 4 or 6`);
  if (!Number.isSafeInteger(metadata.nodeCount) || metadata.nodeCount <= 0) throw new Error('node_count is not positive');
  await verifyMmdb(db, { nodeCount: metadata.nodeCount, recordSize: metadata.recordSize });
  const ipv6Tree = metadata.ipVersion === 6;
  return {
    databaseType: typeof metadata.databaseType === 'string' ? metadata.databaseType : '',
    find(address) {
      // An IPv4-only tree has no IPv6 addresses; maxmind would read the IPv6 bits as if they were IPv4.
      if (!ipv6Tree && address.includes(':')) return null;
      const [record, prefixLength] = reader.getWithPrefixLength(address);
      return record === null ? null : { record, prefixLength };
    },
  };
}
