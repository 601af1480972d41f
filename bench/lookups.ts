import { createDossier } from '../lib/dossier.js';
import { measure, onEachStore, type BenchResult } from './harness.js';
import { stubMessageClient, stubResolver } from './stub-resolver.js';

/** The body `GET /api/dns?domain=example.com` answers with the stub resolver, for the baseline to answer too. */
export async function dnsAnswer(): Promise<unknown> {
  const dossier = createDossier({ store: 'memory://', createDnsResolver: stubResolver, dnsMessageClient: stubMessageClient });
  try {
    const { data } = await dossier.lookups.lookup('dns', 'example.com');
    return { status: 'success', data, cached: true };
  } finally {
    await dossier.close();
  }
}

/** `GET /api/dns` with a valid key, answered from the cache, on the memory and the SQLite store. */
export function lookupScenarios(): Promise<BenchResult[]> {
  return onEachStore(
    { createDnsResolver: stubResolver, dnsMessageClient: stubMessageClient },
    async ({ label, dossier, url }) => {
      const { secret } = await dossier.keys.create({ name: 'bench', dailyLimit: 1_000_000_000 });
      const request = { url: `${url}/api/dns?domain=example.com`, headers: { Authorization: `Bearer ${secret}` } };
      await fetch(request.url, { headers: request.headers }); // warms the cache
      return [await measure(`GET /api/dns, cache hit (store ${label})`, request)];
    },
  );
}
