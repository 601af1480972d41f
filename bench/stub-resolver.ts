import type { DnsMessageClient } from '../lib/ports/dns-message-client.js';
import type { DnsResolver } from '../lib/ports/dns-resolver.js';

/** A resolver that answers at once from memory, so that the benchmark measures Dossier, not DNS. */
export function stubResolver(): DnsResolver {
  const none = async (): Promise<never> => {
    throw Object.assign(new Error('no data'), { code: 'ENODATA' });
  };
  return {
    resolve4: async () => [{ address: '93.184.216.34', ttl: 3600 }],
    resolve6: async () => [{ address: '2606:2800:220:1:248:1893:25c8:1946', ttl: 3600 }],
    resolveMx: async () => [{ exchange: 'mail.example.com', priority: 10 }],
    resolveNs: async () => ['a.iana-servers.net', 'b.iana-servers.net'],
    resolveTxt: async () => [['v=spf1 -all']],
    resolveCname: none,
    resolveSoa: async () => ({
      nsname: 'ns.icann.org',
      hostmaster: 'noc.dns.icann.org',
      serial: 2026112201,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minttl: 3600,
    }),
    reverse: none,
    cancel: () => {},
  };
}

/** A message client that answers every question at once with an empty NOERROR, unsigned, not validated. */
export const stubMessageClient: DnsMessageClient = {
  query: async () => ({ rcode: 'NOERROR', authenticated: false, answers: [], authorities: [] }),
};
