// Embedding Dossier in your own program: no HTTP server, just the library.
// Run: npm run build && DOSSIER_DNS_SERVERS=1.1.1.1 node dist/examples/embed.js example.com
import { createDossier, optionsFromEnv, type DnsData } from '../lib/index.js';

/** Looks up the DNS records of `domain` twice (the second answer comes from the cache). */
export async function lookUp(domain: string, env: NodeJS.ProcessEnv = process.env): Promise<{ first: DnsData; cached: boolean }> {
  const dossier = createDossier({ ...optionsFromEnv(env), store: 'memory://' });
  try {
    const first = await dossier.lookups.lookup('dns', domain);
    const second = await dossier.lookups.lookup('dns', domain);
    return { first: first.data, cached: second.cached };
  } finally {
    await dossier.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { first, cached } = await lookUp(process.argv[2] ?? 'example.com');
  console.log(JSON.stringify(first, null, 2));
  console.log(`second lookup cached: ${cached}`);
}
