import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { DnsResolver } from '../../ports/dns-resolver.js';
import { formatHostPort, type HostPort } from './host-port.js';

/**
 * Makes `node:dns` resolvers that ask `servers` (the system's resolvers when empty),
 * trying each query once with a per-query timeout. One resolver per lookup, because
 * `Resolver.cancel()` cancels every query of its resolver, and a deadline must stop only its own.
 * A server given by name is resolved once, through the system's resolver, on first use.
 */
export function systemDnsResolverFactory(servers: readonly HostPort[], timeoutMs: number): () => DnsResolver {
  if (servers.every(({ host }) => isIP(host) !== 0)) {
    const addresses = servers.map(({ host, port }) => formatHostPort(host, port));
    return () => {
      const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
      if (addresses.length > 0) resolver.setServers(addresses);
      return resolver;
    };
  }
  const named = resolveNamesOnce(servers, (error) =>
    Object.assign(new Error(`A DNS server's name could not be resolved: ${String(error)}`), { code: 'ESERVFAIL' }),
  );
  const addresses = async (): Promise<string[]> => (await named()).map(({ host, port }) => formatHostPort(host, port));
  return () => new NamedServersResolver(new Resolver({ timeout: timeoutMs, tries: 1 }), addresses);
}

/**
 * `servers` with each name resolved once, through the system's resolver, to its first IPv4 address,
 * else its first address (a name like localhost often has both). A failure, worded by `failed`, is not
 * kept: a name that failed is asked again next time.
 */
export function resolveNamesOnce(servers: readonly HostPort[], failed: (error: unknown) => Error): () => Promise<HostPort[]> {
  let resolved: Promise<HostPort[]> | undefined;
  const addressOf = async (host: string): Promise<string> => {
    const addresses = await lookup(host, { all: true });
    return (addresses.find(({ family }) => family === 4) ?? addresses[0]!).address;
  };
  return () =>
    (resolved ??= Promise.all(
      servers.map(async ({ host, port }) => ({ host: isIP(host) !== 0 ? host : await addressOf(host), port })),
    ).catch((error: unknown) => {
      resolved = undefined;
      throw failed(error);
    }));
}

/** A resolver whose servers are known only once their names are resolved: every query waits for that. */
class NamedServersResolver implements DnsResolver {
  private ready: Promise<void> | undefined;
  private cancelled = false;

  constructor(
    private readonly resolver: Resolver,
    private readonly addresses: () => Promise<string[]>,
  ) {}

  resolve4 = this.after((name: string, options: { ttl: true }) => this.resolver.resolve4(name, options));
  resolve6 = this.after((name: string, options: { ttl: true }) => this.resolver.resolve6(name, options));
  resolveMx = this.after((name: string) => this.resolver.resolveMx(name));
  resolveNs = this.after((name: string) => this.resolver.resolveNs(name));
  resolveTxt = this.after((name: string) => this.resolver.resolveTxt(name));
  resolveCname = this.after((name: string) => this.resolver.resolveCname(name));
  resolveSoa = this.after((name: string) => this.resolver.resolveSoa(name));
  reverse = this.after((ip: string) => this.resolver.reverse(ip));

  cancel(): void {
    this.cancelled = true;
    this.resolver.cancel();
  }

  private after<A extends unknown[], R>(query: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      this.ready ??= this.addresses().then((addresses) => this.resolver.setServers(addresses));
      await this.ready;
      if (this.cancelled) throw Object.assign(new Error('The query was cancelled.'), { code: 'ECANCELLED' });
      return query(...args);
    };
  }
}
