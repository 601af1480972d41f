import type { Clock } from '../../ports/clock.js';
import type { HostPort } from '../net/host-port.js';
import type { Reach } from '../net/reach.js';
import { queryPort43 } from './port43.js';
import { tldWhoisServer } from './whois-text.js';

/** IANA's whois server, which names each TLD's own (`whois:` line). */
export const IANA_WHOIS_SERVER = 'whois.iana.org';

/**
 * How long IANA's answer for a TLD is kept: a day when it names a server, five minutes when it names
 * none (a name under an invented TLD costs one question to IANA per five minutes, not one per lookup;
 * a new TLD is found soon after it is delegated). At most `entries` TLDs are kept, the oldest dropped
 * first, so that invented TLDs cannot grow the table without bound.
 */
export const TLD_SERVER_CACHE = { serverMs: 24 * 3600 * 1000, noServerMs: 5 * 60 * 1000, entries: 1000 } as const;

const MAX_BYTES = 64 * 1024;

/**
 * Each TLD's whois server, found as the `whois` tool finds it: by asking IANA's whois server about the
 * TLD and reading its `whois:` line. Answers are kept in memory as {@link TLD_SERVER_CACHE} says; a
 * failure to ask IANA is not kept.
 */
export class TldWhoisServers {
  private readonly known = new Map<string, { server: string | null; until: number }>();

  /**
   * @param iana IANA's whois server (tests point it at a loopback server).
   * @param maxEntries how many TLDs are kept at most.
   */
  constructor(
    private readonly iana: HostPort,
    private readonly clock: Clock,
    private readonly maxEntries: number = TLD_SERVER_CACHE.entries,
  ) {}

  /**
   * The whois server of `tld`, or null when IANA names none.
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED`, `ERR_UPSTREAM_FAILED`, `ERR_UPSTREAM_TIMEOUT`.
   */
  async serverFor(tld: string, reach: Reach): Promise<string | null> {
    const cached = this.known.get(tld);
    if (cached !== undefined && cached.until > this.clock.now()) return cached.server;
    const answer = await queryPort43({ server: { ...this.iana, trusted: false }, query: tld, maxBytes: MAX_BYTES, reach });
    const server = tldWhoisServer(answer.toString('latin1'));
    this.remember(tld, server);
    return server;
  }

  private remember(tld: string, server: string | null): void {
    const keepMs = server === null ? TLD_SERVER_CACHE.noServerMs : TLD_SERVER_CACHE.serverMs;
    // Deleting first moves a refreshed TLD to the end of the Map's order, which is oldest first.
    this.known.delete(tld);
    this.known.set(tld, { server, until: this.clock.now() + keepMs });
    for (const oldest of this.known.keys()) {
      if (this.known.size <= this.maxEntries) break;
      this.known.delete(oldest);
    }
  }
}
