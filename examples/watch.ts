// Watching a domain from your own program: no webhook, no HTTP server; the events come in-process.
// Run: npm run build && DOSSIER_DNS_SERVERS=1.1.1.1 node dist/examples/watch.js example.com
import { createDossier, optionsFromEnv, type Dossier, type WatchEvent } from '../lib/index.js';

/** A domain under watch, and how to stop. */
export interface DomainWatch {
  dossier: Dossier;
  watchId: string;
  close(): Promise<void>;
}

/**
 * Watches the DNS records of `domain` every `intervalSeconds` (the first check, at once, sets the
 * baseline) and calls `onChange` with each `dns.changed` event: which records were added or removed.
 */
export async function watchDomain(
  domain: string,
  onChange: (event: WatchEvent) => void,
  { env = process.env, intervalSeconds = 60 }: { env?: NodeJS.ProcessEnv; intervalSeconds?: number } = {},
): Promise<DomainWatch> {
  const dossier = createDossier({ ...optionsFromEnv(env), store: 'memory://' });
  dossier.watches.on('dns.changed', onChange);
  const { watch } = await dossier.watches.create({ type: 'dns', domain, intervalSeconds });
  return { dossier, watchId: watch.id, close: () => dossier.close() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const watching = await watchDomain(process.argv[2] ?? 'example.com', (event) =>
    console.log(JSON.stringify(event.data.changes)),
  );
  console.log(`watching ${process.argv[2] ?? 'example.com'}; Ctrl-C to stop`);
  // The checks run on timers that leave the process free to end (an embedding program ends when its own
  // work does): this one holds it open until Ctrl-C or SIGTERM, then closes the Dossier and ends.
  const open = setInterval(() => {}, 2 ** 30);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      clearInterval(open);
      void watching.close();
    });
  }
}
