import { DossierError } from '../../errors.js';
import type { DnsMessageClient } from '../../ports/dns-message-client.js';
import type { DnsResolver } from '../../ports/dns-resolver.js';
import type { DnsData, Lookup } from '../../ports/lookup-service.js';
import { withOwnResolver } from '../net/reach.js';
import { parseDomainName } from '../net/domain-name.js';
import { canonicalIpText } from '../net/ip-address.js';
import { caaRecords } from './caa.js';
import { dnssecStatus } from './dnssec.js';
import { mailPolicy } from './mail-policy.js';

/** How long DNS answers are cached: the records' smallest TTL, within these bounds. */
export const DNS_CACHE_BOUNDS = { minSeconds: 60, maxSeconds: 3600 } as const;

/** Codes of `node:dns` that mean "no such record", not a failure. */
const NO_DATA = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * `GET /api/dns`: A, AAAA, MX, NS, TXT, CNAME and SOA through the resolver, and CAA, DNSSEC and the
 * DMARC record through the message client (which reads what `node:dns` cannot), all in parallel.
 */
export class DnsLookup implements Lookup<'dns'> {
  readonly kind = 'dns' as const;

  /**
   * @param createResolver gives a fresh resolver per lookup, so a deadline cancels only its own queries.
   * @param messageClient asks the questions that need the AD flag, DNSKEY, DS or CAA.
   */
  constructor(
    private readonly createResolver: () => DnsResolver,
    private readonly messageClient: DnsMessageClient,
  ) {}

  parse(input: unknown): string {
    return parseDomainName(input, { allowUnderscore: true });
  }

  run(domain: string, signal: AbortSignal): Promise<{ data: DnsData; ttlSeconds: number }> {
    return withOwnResolver(this.createResolver, signal, async (resolver) => {
      // Ends the message client's questions too when one question fails and the lookup with it.
      const settled = new AbortController();
      const questions = AbortSignal.any([signal, settled.signal]);
      let missing = false;
      const ask = async <T>(query: Promise<T>, none: T, alsoNone?: string): Promise<T> => {
        try {
          return await query;
        } catch (error) {
          const code = (error as { code?: string }).code ?? '';
          if (code === alsoNone) return none;
          if (!NO_DATA.has(code)) throw upstreamError(domain, code, error);
          if (code === 'ENOTFOUND') missing = true;
          return none;
        }
      };
      try {
        const txtQuery = ask(resolver.resolveTxt(domain), []).then((records) => records.map((chunks) => chunks.join('')));
        const [a, aaaa, mx, ns, txt, cname, soa, caa, dnssec, mail] = await Promise.all([
          ask(resolver.resolve4(domain, { ttl: true }), []),
          ask(resolver.resolve6(domain, { ttl: true }), []),
          ask(resolver.resolveMx(domain), []),
          ask(resolver.resolveNs(domain), []),
          txtQuery,
          ask(resolver.resolveCname(domain), []),
          // c-ares calls an SOA answer with a CNAME chain but no SOA (the target has none) EBADRESP: it is no SOA.
          ask(resolver.resolveSoa(domain), null, 'EBADRESP'),
          caaRecords(domain, this.messageClient, questions),
          dnssecStatus(domain, this.messageClient, questions),
          txtQuery.then((records) => mailPolicy(domain, records, this.messageClient, questions)),
        ]);
        const data: DnsData = {
          domain,
          exists: !missing,
          A: a.map(({ address, ttl }) => ({ address, ttl })),
          AAAA: aaaa.map(({ address, ttl }) => ({ address: canonicalIpText(address), ttl })),
          MX: mx.map(({ exchange, priority }) => ({ exchange, priority })).sort((x, y) => x.priority - y.priority),
          NS: ns,
          TXT: txt,
          CNAME: cname,
          SOA: soa && {
            nsname: soa.nsname,
            hostmaster: soa.hostmaster,
            serial: soa.serial,
            refresh: soa.refresh,
            retry: soa.retry,
            expire: soa.expire,
            minttl: soa.minttl,
          },
          CAA: caa,
          dnssec,
          mail,
        };
        return { data, ttlSeconds: cacheSeconds(data) };
      } finally {
        settled.abort();
      }
    });
  }
}

/** The smallest TTL among the records that carry one, bounded; the lower bound when none does. */
function cacheSeconds(data: DnsData): number {
  const ttls = [...data.A, ...data.AAAA].map((record) => record.ttl);
  if (data.SOA) ttls.push(data.SOA.minttl);
  const smallest = ttls.length > 0 ? Math.min(...ttls) : DNS_CACHE_BOUNDS.minSeconds;
  return Math.min(DNS_CACHE_BOUNDS.maxSeconds, Math.max(DNS_CACHE_BOUNDS.minSeconds, smallest));
}

function upstreamError(domain: string, code: string, cause: unknown): DossierError {
  if (code === 'ETIMEOUT') {
    return new DossierError('ERR_UPSTREAM_TIMEOUT', `The DNS server did not answer in time for ${domain}.`, { cause });
  }
  return new DossierError('ERR_UPSTREAM_FAILED', `The DNS server failed to answer for ${domain} (${code || 'unknown error'}).`, {
    cause,
  });
}
