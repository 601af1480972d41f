import type { LookupContext } from '../../lib/lookup/net/lookup-context.js';
import { parseHostPort } from '../../lib/lookup/net/host-port.js';
import { systemDnsResolverFactory } from '../../lib/lookup/net/system-dns-resolver.js';
import { RangeTargetGuard } from '../../lib/lookup/net/target-guard.js';
import { WhoisLookup, type WhoisLookupOptions } from '../../lib/lookup/whois/whois-lookup.js';
import type { DnsResolver } from '../../lib/ports/dns-resolver.js';
import { resolveOptions, type DossierOptions } from '../../lib/options.js';

/** What {@link whoisLookupOnLoopback} needs: Dossier's options, and where the directories are. */
export interface LoopbackWhoisOptions extends Pick<WhoisLookupOptions, 'bootstrapUrl' | 'ianaWhoisServer' | 'registryZones'> {
  /** The loopback DNS server every name is resolved at (`127.0.0.1:PORT`). */
  dnsServer: string;
  /** `whoisServer`, `rdapUrl`, `allowPrivateTargets` (true unless given), `lookupTimeoutMs` (2000 unless given). */
  options?: DossierOptions;
  /** Wraps each lookup's resolver (to record the names it resolves). */
  resolver?: (resolver: DnsResolver) => DnsResolver;
}

/**
 * A {@link WhoisLookup} as Dossier builds it from `options`, but with its directories (the RDAP bootstrap
 * registry, IANA's whois server, the registry-run zones' servers) and its DNS on loopback.
 */
export function whoisLookupOnLoopback({
  dnsServer,
  options = {},
  resolver = (r) => r,
  ...directories
}: LoopbackWhoisOptions): WhoisLookup {
  const settled = resolveOptions({
    store: 'memory://',
    dnsServers: [dnsServer],
    allowPrivateTargets: true,
    lookupTimeoutMs: 2000,
    ...options,
  });
  const createResolver = systemDnsResolverFactory(
    settled.dnsServers.map((server) => parseHostPort(server, 53)!),
    settled.lookupTimeoutMs,
  );
  const context: LookupContext = {
    createResolver: () => resolver(createResolver()),
    guard: new RangeTargetGuard(settled.allowPrivateTargets),
    clock: settled.clock,
    logger: settled.logger,
  };
  return new WhoisLookup(context, {
    timeoutMs: settled.lookupTimeoutMs,
    whoisServer: settled.whoisServer === undefined ? undefined : parseHostPort(settled.whoisServer, 43)!,
    rdapUrl: settled.rdapUrl,
    ...directories,
  });
}
