import { DossierError, isDossierError } from '../../errors.js';
import { httpGet } from './http-client.js';
import { abortError, untilAborted } from '../net/abort.js';
import type { LookupContext } from '../net/lookup-context.js';
import { withOwnResolver } from '../net/reach.js';

/** IANA's RDAP bootstrap registry for domains (RFC 9224). */
export const IANA_RDAP_BOOTSTRAP_URL = 'https://data.iana.org/rdap/dns.json';

/** How long the registry is kept once fetched, and how long a failure to fetch it is remembered. */
const KEEP_MS = 24 * 3600 * 1000;
const FAILURE_MS = 60 * 1000;
const MAX_BYTES = 1024 * 1024;

/**
 * The RDAP server of each TLD, from the bootstrap registry: fetched on first use through the guarded
 * HTTP client, kept in memory for a day, shared by concurrent first uses. The download belongs to no
 * caller: it has its own resolver and deadline, and each caller stops waiting for it on its own signal
 * while it goes on for the others. While it cannot be fetched (for a minute after a download failed or
 * ran out of time), every TLD is "no RDAP server", so lookups go to whois.
 */
export class RdapBootstrap {
  private services: { map: Map<string, string>; until: number } | undefined;
  private loading: Promise<Map<string, string>> | undefined;
  private failedUntil = 0;

  /**
   * @param context makes the download's own resolver, and holds the registry's host to its rules.
   * @param timeoutMs deadline of one download in milliseconds, whoever waits for it.
   */
  constructor(
    private readonly url: string,
    private readonly context: Pick<LookupContext, 'clock' | 'createResolver' | 'guard'>,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The RDAP base URL (ending in `/`) for `domain`'s longest listed suffix, or null when none is
   * listed or the registry cannot be fetched.
   * @throws DossierError `ERR_LOOKUP_TARGET_NOT_ALLOWED` when the registry's host resolves to a
   *   non-public address; `ERR_UPSTREAM_TIMEOUT` or the signal's reason when `signal` aborts first
   *   (the download goes on).
   */
  async serverFor(domain: string, signal: AbortSignal): Promise<string | null> {
    const now = this.context.clock.now();
    let map = this.services !== undefined && this.services.until > now ? this.services.map : undefined;
    if (map === undefined) {
      if (this.failedUntil > now) return null;
      if (signal.aborted) throw abortError(signal, 'The RDAP bootstrap registry');
      this.loading ??= this.load();
      try {
        map = await untilAborted(this.loading, signal, 'The RDAP bootstrap registry');
      } catch (error) {
        if (signal.aborted || isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED')) throw error;
        return null;
      }
    }
    const labels = domain.split('.');
    for (let i = 0; i < labels.length; i += 1) {
      const server = map.get(labels.slice(i).join('.'));
      if (server !== undefined) return server;
    }
    return null;
  }

  /** One download; its failure, and only its own, is remembered. */
  private async load(): Promise<Map<string, string>> {
    const { clock, createResolver, guard } = this.context;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const map = await withOwnResolver(createResolver, signal, async (resolver) => {
        const answer = await httpGet({
          url: this.url,
          trusted: false,
          reach: { resolver, guard, signal },
          maxBytes: MAX_BYTES,
          accept: 'application/json',
        });
        if (answer.status !== 200) {
          throw new DossierError('ERR_UPSTREAM_FAILED', `The RDAP bootstrap answered HTTP ${answer.status}.`);
        }
        return parseBootstrap(answer.body);
      });
      this.services = { map, until: clock.now() + KEEP_MS };
      return map;
    } catch (error) {
      if (!isDossierError(error, 'ERR_LOOKUP_TARGET_NOT_ALLOWED')) this.failedUntil = clock.now() + FAILURE_MS;
      throw error;
    } finally {
      this.loading = undefined;
    }
  }
}

/**
 * Reads a bootstrap registry: `services` is a list of `[[labels…], [urls…]]`; an https URL is
 * preferred over an http one. Base URLs are given a trailing `/` so that `domain/NAME` resolves under them.
 * @throws DossierError `ERR_UPSTREAM_FAILED` when the document is not a bootstrap registry.
 */
export function parseBootstrap(body: string): Map<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new DossierError('ERR_UPSTREAM_FAILED', 'The RDAP bootstrap registry is not JSON.', { cause });
  }
  const services = typeof json === 'object' && json !== null ? (json as { services?: unknown }).services : undefined;
  if (!Array.isArray(services)) throw new DossierError('ERR_UPSTREAM_FAILED', 'The RDAP bootstrap registry has no services.');
  const map = new Map<string, string>();
  for (const service of services) {
    if (!Array.isArray(service)) continue;
    const [labels, urls] = service as unknown[];
    if (!Array.isArray(labels) || !Array.isArray(urls)) continue;
    const candidates = urls.filter((url): url is string => typeof url === 'string' && /^https?:\/\//i.test(url));
    const chosen = candidates.find((url) => url.toLowerCase().startsWith('https:')) ?? candidates[0];
    if (chosen === undefined) continue;
    const base = chosen.endsWith('/') ? chosen : `${chosen}/`;
    for (const label of labels) {
      if (typeof label === 'string' && label !== '') map.set(label.toLowerCase(), base);
    }
  }
  return map;
}
