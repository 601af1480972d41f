// Metered lookups from a plain Node script: the same keys, quota and usage history as the HTTP server,
// with no server at all. Run: npm run build && DOSSIER_DNS_SERVERS=1.1.1.1 node dist/examples/metered.js example.com
import { createDossier, optionsFromEnv } from '../lib/index.js';

/** Makes a key with a daily limit of 2 and looks `domain` up three times with it: the third is refused. */
export async function meteredLookups(domain: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const dossier = createDossier({ ...optionsFromEnv(env), store: 'memory://' });
  try {
    const { secret } = await dossier.keys.create({ name: 'script', dailyLimit: 2 });
    const lines: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const outcome = await dossier.metering.lookup(secret, 'dns', domain);
      const left = outcome.quota === null ? '?' : outcome.quota.remaining;
      lines.push(
        outcome.ok
          ? `ok (cached: ${outcome.value.cached}), ${left} left today`
          : `${outcome.error.code}: ${outcome.error.message}`,
      );
    }
    const usage = await dossier.metering.usage(secret);
    if (usage.ok) lines.push(`used today: ${usage.value.usedToday} of ${usage.value.dailyLimit}`);
    return lines;
  } finally {
    await dossier.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await meteredLookups(process.argv[2] ?? 'example.com')) console.log(line);
}
